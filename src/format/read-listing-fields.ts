import { hasUnusualCharacter, isSpecialKey, readScalar, trimSpaces } from './read-simple-frontmatter.js';

/** What a listing shows of a skill, as the frontmatter's author wrote it (not yet trimmed or normalized). */
export interface ListingFields {
  name: string;
  description: string;
}

/**
 * `name` and `description` of a frontmatter in the plainest shape, read without building its
 * mapping: every line a `key: value` at the left edge, a value being a one-line scalar, or a `key:`
 * over a mapping of such lines indented once (`metadata`). Nothing else: not a blank or comment
 * line, a list, a block or flow value, a duplicate key, a value holding `: `, and not the fields
 * that hide a skill from the model (`disable-model-invocation`, `metadata.internal`), so a skill
 * read here is one the model may see. Both fields must be present and non-empty; undefined sends
 * the text to the full parse.
 *
 * Why: a listing of 10,000 skills spent as long parsing frontmatters, and collecting what the
 * parses made, as reading the files (each mapping, its as-written copy and the parse around it are
 * a few kilobytes per skill). 560 of the corpus's 636 SKILL.md files have this shape. A text read
 * here is also one the simple reader (read-simple-frontmatter.ts) accepts: a key is read by its
 * rule (`keyLineAt` says how) and each value by its own `readScalar`, so the mapping it would
 * build, worked out when someone asks for it, gives the same name and description. Positions in
 * the text rather than a string per line: this runs once per skill of a cold listing, mostly
 * before V8 has compiled it.
 */
/**
 * Keys (top-level and nested together) beyond which a frontmatter is left to the full parse: the
 * duplicate check compares each key with those before it, and real frontmatters have under twenty.
 */
const maxKeys = 64;

export function readListingFields(yaml: string): ListingFields | undefined {
  if (hasUnusualCharacter(yaml)) return undefined;
  let name: string | undefined;
  let description: string | undefined;
  const keys: string[] = [];
  let position = 0;
  while (position < yaml.length) {
    const lineEnd = endOfLine(yaml, position);
    const colon = keyLineAt(yaml, position, lineEnd);
    if (colon === -1) return undefined;
    const key = yaml.slice(position, colon);
    if (isSpecialKey(key) || keys.includes(key) || key === 'disable-model-invocation') return undefined;
    if (keys.push(key) > maxKeys) return undefined;
    position = lineEnd + 1;
    if (colon + 1 === lineEnd) {
      if (key === 'name' || key === 'description') return undefined;
      const after = skipNestedMapping(yaml, position, key === 'metadata', maxKeys - keys.length);
      if (after === undefined) return undefined;
      position = after;
      continue;
    }
    const scalar = readScalar(trimSpaces(yaml.slice(colon + 2, lineEnd)));
    if (scalar === undefined || 'kind' in scalar) return undefined;
    if (key === 'name') name = scalar.written;
    else if (key === 'description') description = scalar.written;
  }
  if (name === undefined || description === undefined || name.trim() === '' || description.trim() === '')
    return undefined;
  return { name, description };
}

function endOfLine(text: string, from: number): number {
  const lineEnd = text.indexOf('\n', from);
  return lineEnd === -1 ? text.length : lineEnd;
}

/**
 * Where the colon of a `key:` or `key: value` line from `start` to `end` is, or -1: the simple
 * reader's `readKeyLine` rule, the key starting at `start`, save the special keys (`isSpecialKey`,
 * which the caller asks about the key). The rule: the key runs to the line's first colon and is a
 * simple word (a letter or `_`, then letters, digits, `_` and `-`), and the colon ends the line or
 * is followed by a space.
 */
function keyLineAt(text: string, start: number, end: number): number {
  let index = start;
  const first = text.charCodeAt(index);
  if (!isLetter(first) && first !== 0x5f) return -1;
  for (index += 1; index < end; index += 1) {
    const code = text.charCodeAt(index);
    if (isLetter(code) || (code >= 0x30 && code <= 0x39) || code === 0x5f || code === 0x2d) continue;
    break;
  }
  if (index === end || text.charCodeAt(index) !== 0x3a) return -1;
  if (index + 1 < end && text.charCodeAt(index + 1) !== 0x20) return -1;
  return index;
}

function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/**
 * Checks the lines after a `key:` from `from`: none indented (the key is null), or a mapping of
 * `key: one-line scalar` lines all at one indentation. Returns where the next top-level line
 * starts, or undefined for anything else.
 */
function skipNestedMapping(yaml: string, from: number, isMetadata: boolean, keysLeft: number): number | undefined {
  const keys: string[] = [];
  let indent = -1;
  let position = from;
  while (position < yaml.length) {
    const lineEnd = endOfLine(yaml, position);
    let keyStart = position;
    while (keyStart < lineEnd && yaml.charCodeAt(keyStart) === 0x20) keyStart += 1;
    const lineIndent = keyStart - position;
    if (lineIndent === 0) break;
    if (indent === -1) indent = lineIndent;
    if (lineIndent !== indent) return undefined;
    const colon = keyLineAt(yaml, keyStart, lineEnd);
    if (colon === -1 || colon + 1 === lineEnd) return undefined;
    const key = yaml.slice(keyStart, colon);
    if (isSpecialKey(key) || keys.includes(key) || (isMetadata && key === 'internal')) return undefined;
    const scalar = readScalar(trimSpaces(yaml.slice(colon + 2, lineEnd)));
    if (scalar === undefined || 'kind' in scalar) return undefined;
    if (keys.push(key) > keysLeft) return undefined;
    position = lineEnd + 1;
  }
  return position;
}
