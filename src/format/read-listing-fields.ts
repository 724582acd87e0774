import { hasUnusualCharacter, indentOf, readKeyLine, readScalar } from './read-simple-frontmatter.js';

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
 * a few kilobytes per skill). 560 of the corpus's 636 SKILL.md files have this shape. A text read here
 * is also one the simple reader accepts, with the same lines and the same scalar rules (its own
 * functions read each line), so the mapping it would build, worked out when someone asks for it,
 * gives the same name and description.
 */
export function readListingFields(yaml: string): ListingFields | undefined {
  if (hasUnusualCharacter(yaml)) return undefined;
  let name: string | undefined;
  let description: string | undefined;
  const keys: string[] = [];
  let position = 0;
  while (position < yaml.length) {
    const lineEnd = endOfLine(yaml, position);
    const entry = readKeyLine(yaml.slice(position, lineEnd), 0);
    position = lineEnd + 1;
    if (entry === undefined || keys.includes(entry.key) || entry.key === 'disable-model-invocation') return undefined;
    keys.push(entry.key);
    if (entry.rest === '') {
      if (entry.key === 'name' || entry.key === 'description') return undefined;
      const after = skipNestedMapping(yaml, position, entry.key === 'metadata');
      if (after === undefined) return undefined;
      position = after;
      continue;
    }
    const scalar = readScalar(entry.rest);
    if (scalar === undefined || 'kind' in scalar) return undefined;
    if (entry.key === 'name') name = scalar.written;
    else if (entry.key === 'description') description = scalar.written;
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
 * Checks the lines after a `key:` from `position`: none indented (the key is null), or a mapping
 * of `key: one-line scalar` lines all at one indentation. Returns where the next top-level line
 * starts, or undefined for anything else.
 */
function skipNestedMapping(yaml: string, from: number, isMetadata: boolean): number | undefined {
  const keys: string[] = [];
  let indent = -1;
  let position = from;
  while (position < yaml.length) {
    const lineEnd = endOfLine(yaml, position);
    const line = yaml.slice(position, lineEnd);
    const lineIndent = indentOf(line);
    if (lineIndent === 0) break;
    if (indent === -1) indent = lineIndent;
    if (lineIndent !== indent) return undefined;
    const entry = readKeyLine(line, indent);
    if (entry === undefined || entry.rest === '' || keys.includes(entry.key)) return undefined;
    if (isMetadata && entry.key === 'internal') return undefined;
    const scalar = readScalar(entry.rest);
    if (scalar === undefined || 'kind' in scalar) return undefined;
    keys.push(entry.key);
    position = lineEnd + 1;
  }
  return position;
}
