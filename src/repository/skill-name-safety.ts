import { skillNameRuleProblems } from '../format/frontmatter-rules.js';
import { mixedLookalikeScripts } from './skill-name-lookalikes.js';

/**
 * Characters a skill name may not hold: C0/C1 controls (line feed, carriage return, tab, escape,
 * ...), the Unicode line and paragraph separators, and the bidirectional overrides and isolates
 * that make text display in another order than it is read. A name is rendered into the model's
 * catalog on one line; any of these lets a SKILL.md write extra lines (or hidden text) there.
 */
const unsafeNameCharacter = /[\p{Cc}\p{Zl}\p{Zp}\u202A-\u202E\u2066-\u2069]/u;

function codePoint(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Why a name cannot be shown as a skill name, or undefined when it can. */
export function skillNameProblem(name: string): string | undefined {
  const unsafe = unsafeNameCharacter.exec(name)?.[0];
  if (unsafe !== undefined) return `holds the control character ${codePoint(unsafe)}`;
  if (name !== name.trim()) return 'has leading or trailing whitespace';
  return undefined;
}

/** The text with every unsafe character written as an escape (`\n`, `\u202e`), safe to print on one line. */
export function escapeUnsafeCharacters(text: string): string {
  return text.replace(new RegExp(unsafeNameCharacter.source, 'gu'), (character) => {
    if (character === '\n') return '\\n';
    if (character === '\r') return '\\r';
    if (character === '\t') return '\\t';
    return `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`;
  });
}

/** What separates an origin's label from a skill name in a qualified name (`acme:pdf`). */
export const qualifiedNameSeparator = ':';

/**
 * Why a name chosen by an origin the host does not control (an MCP server) cannot be offered, or
 * undefined when it can. Stricter than `skillNameProblem`, which local folders get: such a name is
 * read next to names of other origins, so it must keep the specification's name rule (letters,
 * digits, hyphens: no separator, no invisible or bidi character), be written as NFKC writes it, and
 * not mix scripts whose letters look alike.
 */
export function untrustedSkillNameProblem(name: string): string | undefined {
  if (name.includes(qualifiedNameSeparator))
    return `holds "${qualifiedNameSeparator}", which separates a server's label from a skill name, so it could pass for another server's skill`;
  const ruled = skillNameRuleProblems(name);
  if (ruled.length > 0) return `breaks the name rule (${ruled.join('; ')})`;
  const normal = name.normalize('NFKC');
  if (normal !== name) return `is not written in NFKC form; it reads as "${normal}"`;
  const scripts = mixedLookalikeScripts(name);
  if (scripts.length > 0) return `mixes scripts ${scripts.join(' and ')}, whose letters look alike`;
  return undefined;
}
