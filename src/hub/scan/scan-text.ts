import type { ScanFinding } from './scan-finding.js';

/*
 * Text a model reads but a person reviewing the file does not see: Unicode's default-ignorable
 * code points as a class (zero-width characters, variation selectors, tag characters, the Hangul
 * fillers, invisible operators, unassigned ones reserved as such), and the braille blank, which is
 * drawn as nothing without being one. A list of known characters missed the ones nobody listed.
 */
const invisibleCharacters = /[\p{Default_Ignorable_Code_Point}\u2800]/gu;
/** Characters that reorder how text is displayed (Trojan Source, CVE-2021-42574). */
const bidiCharacters = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;
const bidiCharacter = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const emoji = /\p{Emoji}/u;
const pictograph = /[\p{Extended_Pictographic}\p{Emoji_Modifier}]/u;

/**
 * Whether the invisible character at `index` is part of an ordinary emoji: one text or emoji
 * presentation selector (U+FE0E, U+FE0F) right after an emoji (`❤️`, the `1️⃣` keycap), or a
 * zero-width joiner between two pictographs (`👨‍👩‍👧`). A second selector, or a selector after
 * anything else, hides something and is reported.
 */
function partOfEmoji(text: string, index: number, character: string): boolean {
  const previous = codePointBefore(text, index);
  if (character === '\uFE0F' || character === '\uFE0E') return emoji.test(previous);
  if (character !== '\u200D') return false;
  const base = previous === '\uFE0F' ? codePointBefore(text, index - 1) : previous;
  return pictograph.test(base) && pictograph.test(String.fromCodePoint(text.codePointAt(index + 1) ?? 0));
}

/** The code point that ends right before `index` (a surrogate pair read whole). */
function codePointBefore(text: string, index: number): string {
  if (index <= 0) return '';
  const low = text.charCodeAt(index - 1);
  if (low >= 0xdc00 && low <= 0xdfff && index >= 2) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(index - 2, index);
  }
  return text.slice(index - 1, index);
}
/** Unicode tag characters mirror ASCII one for one; decoding them shows the hidden instruction. */
const tagCharacters = /[\u{E0020}-\u{E007E}]+/gu;

const networkPatterns: readonly [RegExp, string][] = [
  [/\b(?:curl|wget)\b/, 'curl/wget'],
  [/\b(?:requests|httpx|aiohttp|urllib\d?|http\.client)\b/, 'Python HTTP client'],
  [/\bfetch\s*\(/, 'fetch()'],
  [/\b(?:axios|XMLHttpRequest|WebSocket)\b/, 'JavaScript HTTP client'],
  [/\bsocket\.(?:socket|create_connection)\b|\bnet\.connect\b|\b(?:nc|ncat|netcat)\s+-/, 'raw socket'],
  [/\bInvoke-(?:WebRequest|RestMethod)\b/, 'PowerShell web request'],
  [/\bhttps?:\/\/[^\s'"`)]+/, 'URL'],
];

const shellPatterns: readonly [RegExp, string][] = [
  [/\b(?:import|from)\s+subprocess\b|\bsubprocess\.|\bos\.(?:system|popen|exec\w*)\s*\(/, 'Python process spawn'],
  [/\bchild_process\b|\b(?:execSync|spawnSync|execFile)\s*\(/, 'Node.js child_process'],
  [/\b(?:bash|sh|zsh)\s+-c\b/, 'shell -c'],
  [/\|\s*(?:sudo\s+)?(?:bash|sh|zsh|python3?)\b(?!\S)/, 'download piped into an interpreter'],
  [/\beval\s+["'$`]|\beval\s*\(/, 'eval'],
  [/\bsudo\b/, 'sudo'],
  [/\brm\s+-[a-zA-Z]*r[a-zA-Z]*f|\brm\s+-[a-zA-Z]*f[a-zA-Z]*r/, 'rm -rf'],
  [/\bchmod\s+[0-7]*[+]?[sx]?\s*\+?s\b|\bchmod\s+[ugoa]*\+s\b/, 'setuid chmod'],
];

const base64Run = /[A-Za-z0-9+/]{200,}={0,2}/;
const hexRun = /\b[0-9a-fA-F]{256,}\b/;

function codePoints(characters: Iterable<string>): string {
  const unique = [...new Set(characters)].map(
    (character) => `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`,
  );
  return unique.slice(0, 8).join(', ') + (unique.length > 8 ? ', …' : '');
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (
    let position = text.indexOf('\n');
    position !== -1 && position < index;
    position = text.indexOf('\n', position + 1)
  )
    line += 1;
  return line;
}

/** Invisible and bidirectional characters in prose (SKILL.md, docs), with hidden tag text decoded. */
export function scanProse(path: string, text: string): ScanFinding[] {
  const findings: ScanFinding[] = [];
  // A byte-order mark at the very start is an encoding marker, not hidden text.
  const body = text.startsWith('\uFEFF') ? ` ${text.slice(1)}` : text;
  const invisible = [...body.matchAll(invisibleCharacters)].filter(
    (match) => !bidiCharacter.test(match[0]) && !partOfEmoji(body, match.index, match[0]),
  );
  if (invisible.length > 0) {
    const hidden = [...body.matchAll(tagCharacters)]
      .map((match) =>
        [...match[0]]
          .map((character) => String.fromCodePoint((character.codePointAt(0) ?? 0xe0000) - 0xe0000))
          .join(''),
      )
      .join(' ');
    findings.push({
      kind: 'invisible-unicode',
      path,
      line: lineOf(body, invisible[0]?.index ?? 0),
      detail: `${invisible.length} invisible character${invisible.length === 1 ? '' : 's'} (${codePoints(invisible.map((match) => match[0]))})${hidden === '' ? '' : `; hidden tag text: ${JSON.stringify(hidden.slice(0, 200))}`}`,
    });
  }
  const bidi = [...body.matchAll(bidiCharacters)];
  if (bidi.length > 0)
    findings.push({
      kind: 'bidi-unicode',
      path,
      line: lineOf(body, bidi[0]?.index ?? 0),
      detail: `${bidi.length} bidirectional control${bidi.length === 1 ? '' : 's'} (${codePoints(bidi.map((match) => match[0]))}) that change the order text is shown in`,
    });
  return findings;
}

function firstMatches(
  path: string,
  text: string,
  patterns: readonly [RegExp, string][],
  kind: 'network' | 'shell',
): ScanFinding[] {
  const hits: { label: string; index: number }[] = [];
  for (const [pattern, label] of patterns) {
    const match = pattern.exec(text);
    if (match !== null)
      hits.push({ label: label === 'URL' ? `URL ${match[0].slice(0, 80)}` : label, index: match.index });
  }
  if (hits.length === 0) return [];
  hits.sort((left, right) => left.index - right.index);
  return [{ kind, path, line: lineOf(text, hits[0]?.index ?? 0), detail: hits.map((hit) => hit.label).join(', ') }];
}

const networkPatternsButUrls = networkPatterns.filter(([, label]) => label !== 'URL');

/**
 * Network and process use in a file's text. In a script every pattern counts; in other text (a
 * SKILL.md, a doc, a data file, which a model may be told to follow) a bare URL is left out, since
 * prose links to pages all the time, and the rest still counts: `curl … | sh` in a doc is an
 * instruction to run a download.
 */
export function scanScriptText(path: string, text: string, options: { readonly urls?: boolean } = {}): ScanFinding[] {
  return [
    ...firstMatches(path, text, options.urls === false ? networkPatternsButUrls : networkPatterns, 'network'),
    ...firstMatches(path, text, shellPatterns, 'shell'),
  ];
}

/** A long base64 or hex run: a payload a reviewer cannot read. */
export function scanEncodedBlobs(path: string, text: string): ScanFinding[] {
  const match = base64Run.exec(text) ?? hexRun.exec(text);
  if (match === null) return [];
  return [
    {
      kind: 'encoded-blob',
      path,
      line: lineOf(text, match.index),
      detail: `${match[0].length} characters of ${/^[0-9a-fA-F]+$/.test(match[0]) ? 'hex' : 'base64'}`,
    },
  ];
}
