import { escapeUnsafeCharacters } from '../format/escape-unsafe-characters.js';
import { SkillFileReadError } from '../repository/errors.js';
import type { Skill, SkillContext, SkillRepository } from '../repository/types.js';
import type { LoadedSkill } from './loaded-skills.js';
import { resolveSelection } from './selection.js';
import { utf8Window } from './utf8-window.js';

/** Default most bytes of one doc injected into a request: one `skill_read` page. */
export const defaultMaxInjectedDocBytes = 20_000;
/** Default most bytes of docs injected into one request, all loaded skills together (about 25,000 tokens). */
export const defaultMaxInjectedBytes = 100_000;

/** How much doc text a request may carry; `remainingBytes` is shared by every skill of the request. */
export interface InjectionAllowance {
  maxDocBytes: number;
  remainingBytes: number;
}

export function createInjectionAllowance(
  limits: { maxDocBytes?: number; maxTotalBytes?: number } = {},
): InjectionAllowance {
  return {
    maxDocBytes: limits.maxDocBytes ?? defaultMaxInjectedDocBytes,
    remainingBytes: limits.maxTotalBytes ?? defaultMaxInjectedBytes,
  };
}

/**
 * The part of a doc that fits the allowance, ending in a line that names the `skill_read` call that
 * continues it when it does not all fit: the model is never handed a cut doc without knowing.
 */
function injectedDoc(skill: string, path: string, bytes: Buffer, allowance: InjectionAllowance): string {
  const limit = Math.min(allowance.maxDocBytes, allowance.remainingBytes);
  const window = utf8Window(bytes, 0, limit);
  allowance.remainingBytes -= window.end;
  const content = window.text.trim();
  if (window.end >= bytes.length) return content;
  const why =
    limit < allowance.maxDocBytes
      ? "this request's limit for loaded docs is used up"
      : `docs are shown up to ${allowance.maxDocBytes} bytes`;
  const next = JSON.stringify({ skill, path, offset: window.end });
  return `${content}${content === '' ? '' : '\n\n'}[truncated at byte ${window.end} of ${bytes.length}: ${why}; call skill_read ${next} for the rest]`;
}

/**
 * What a successful `skill_load` returns: a short stub that materialisation replaces with the
 * skill's content in each request, and that clients see in events instead of the body.
 */
export function loadedStub(name: string): string {
  return `loaded: ${name}`;
}

/** The first line of every loaded-skill block; also how compaction and tests find one. */
export function loadedMarker(name: string): string {
  return `[Loaded] ${name}`;
}

export const loadedContextHeader = 'Loaded skill context:';

/**
 * One loaded skill as the model reads it:
 *
 *     [Loaded] <name>
 *
 *     <body>
 *
 *     Docs loaded: a.md, b.md        (or "none")
 *     Tools selected: x, y           (only for skills with a Tools: section)
 *
 *     [Doc] a.md
 *
 *     <content of a.md>
 *
 * Docs follow the selection order (`*`: the repository's order). A selected doc that no longer
 * exists is named on a `Docs not found:` line, one the repository refuses to serve (too large, not
 * a file) on a `Docs not readable:` line, rather than dropped silently. Docs are cut to the
 * allowance, with a line naming the `skill_read` call that continues them.
 */
export async function renderLoadedSkill(
  skill: Skill,
  loaded: LoadedSkill,
  repository: SkillRepository,
  skillContext?: SkillContext,
  allowance: InjectionAllowance = createInjectionAllowance(),
): Promise<string> {
  const docs = resolveSelection(loaded.docs, skill.docs);
  const found: { path: string; content: string }[] = [];
  const missing: string[] = [];
  const unreadable: string[] = [];
  for (const path of docs) {
    if (!skill.docs.includes(path)) {
      missing.push(path);
      continue;
    }
    let bytes: Buffer;
    try {
      bytes = await repository.readFile(skill.name, path, skillContext);
    } catch (error) {
      if (error instanceof SkillFileReadError)
        unreadable.push(`${path} (${error.message.slice(error.message.indexOf(': ') + 2)})`);
      else missing.push(path);
      continue;
    }
    found.push({ path, content: injectedDoc(skill.name, path, bytes, allowance) });
  }
  // A file name (from a repository) or a requested path (from the model) with a line break in it
  // could otherwise start a forged `[Doc]` section or summary line.
  const shown = escapeUnsafeCharacters;
  const sections = [loadedMarker(skill.name)];
  const body = skill.body.trim();
  if (body !== '') sections.push(body);
  const summary = [`Docs loaded: ${found.length === 0 ? 'none' : found.map((doc) => shown(doc.path)).join(', ')}`];
  if (missing.length > 0) summary.push(`Docs not found: ${missing.map(shown).join(', ')}`);
  if (unreadable.length > 0) summary.push(`Docs not readable: ${unreadable.map(shown).join('; ')}`);
  if (skill.tools.length > 0) {
    const tools = resolveSelection(loaded.tools, skill.tools);
    summary.push(`Tools selected: ${tools.length === 0 ? 'none' : tools.join(', ')}`);
  }
  sections.push(summary.join('\n'));
  for (const doc of found) {
    sections.push(`[Doc] ${shown(doc.path)}`);
    const content = doc.content.trim();
    if (content !== '') sections.push(content);
  }
  return sections.join('\n\n');
}
