import { modelInvocableFromFrontmatter } from './model-invocation.js';
import { type ColonValuesFound, colonValues, readFlowList, readScalar, trimSpaces } from './read-yaml-scalar.js';

/**
 * The one fast reader for the frontmatter shapes almost every real skill uses, because the full YAML library
 * is what made listing many skills slow: its first use in a process alone costs more than reading
 * every SKILL.md of a large collection. For the texts it accepts it gives exactly what the library
 * gives (its `toJS` mapping, and each scalar's text as written); everything else is refused with
 * `undefined` and the caller parses the full way. Accepted:
 *
 * - block mappings of `key: value` lines, a value being a one-line plain, single- or double-quoted
 *   scalar, a one-line flow list of such scalars (`[a, "b"]`), or a `|`, `|-`, `>`, `>-` block scalar;
 * - `key:` followed by a mapping indented deeper, or by a list of `- value` items (at the key's
 *   indentation or deeper), nested up to `maxDepth` levels;
 * - list items that are one-line scalars, or mappings of one-line values (`- name: x` with
 *   `  role: y` below it);
 * - blank lines and comment lines between entries.
 *
 * Refused (the full parser reads them): tabs and control characters anywhere, flow mappings, flow
 * lists over several lines or holding anything but simple scalars, anchors, aliases, tags,
 * multi-line plain or quoted scalars, comments after a value, duplicate keys, keys that are not
 * simple words, numbers other than plain decimals, any escape beyond JSON's, and block scalars or
 * nested collections inside list items. When in doubt it refuses: a refusal costs time, a wrong
 * reading would change what a user sees.
 */

/**
 * A listing needs only `name` and `description`, and most skills are listed and never opened: the
 * same grammar read in fields-only mode keeps neither the as-written copy nor the key lines, and
 * its caller keeps the text rather than the mapping until someone asks for more.
 */
export interface FrontmatterFields {
  /** `name` as the author wrote it (not yet trimmed or normalized). */
  name: string;
  /** `description` as the author wrote it (not yet trimmed). */
  description: string;
  /** What model-invocation.ts reads from the mapping, worked out now since the mapping is not kept. */
  modelInvocable: false | undefined;
}

export interface SimpleFrontmatter {
  kind: 'read';
  /** The mapping, as the YAML library's `toJS` gives it for the same text. */
  values: Record<string, unknown>;
  /**
   * The same mapping with its scalars, and those of a mapping directly under it (`metadata`), as
   * the author wrote them (`1.10`, `True`; '' for null). Deeper down, collections are as in `values`
   * (copies), which is what the YAML path keeps.
   */
  written: Record<string, unknown>;
  /** 1-based line of each top-level key: within the YAML text, plus `firstLine - 1` when given. */
  keyLines: Map<string, number>;
}

// Characters the YAML library may treat specially or refuse (controls, tab, NEL, BOM, line and
// paragraph separators, non-characters, lone surrogates): their presence anywhere means the full parser.
const unusualCharacter =
  /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// The same characters plus every surrogate, without look-arounds: a much quicker first test that
// lets most texts (those without emoji) skip the exact one.
const unusualOrSurrogate = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]/;

/** Whether the text holds a character that only the full YAML parser may read (see unusualCharacter). */
function hasUnusualCharacter(text: string): boolean {
  return unusualOrSurrogate.test(text) && unusualCharacter.test(text);
}

const simpleKey = /^[A-Za-z_][A-Za-z0-9_-]*$/;
// Keys the core schema would read as a boolean or null, and the key a plain object cannot hold as data.
const specialKeys = new Set(['true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'null', 'Null', 'NULL', '__proto__']);

/** Whether a key of the simple shape is one the reader refuses (see specialKeys). */
function isSpecialKey(key: string): boolean {
  return specialKeys.has(key);
}

const blockHeaders = new Set(['|', '|-', '>', '>-']);

/** Nesting deeper than this (in mappings and lists) is left to the full parser. */
const maxDepth = 6;

interface KeyLine {
  key: string;
  /** The text after `key:` without surrounding spaces; '' when nothing follows the colon. */
  rest: string;
}

/** `key: value` or `key:` at `indent` in `line`, else undefined. */
function readKeyLine(line: string, indent: number): KeyLine | undefined {
  const colon = line.indexOf(':', indent);
  if (colon === -1) return undefined;
  const key = line.slice(indent, colon);
  if (!simpleKey.test(key) || isSpecialKey(key)) return undefined;
  if (colon + 1 === line.length) return { key, rest: '' };
  if (line[colon + 1] !== ' ') return undefined;
  return { key, rest: trimSpaces(line.slice(colon + 2)) };
}

function indentOf(line: string): number {
  let index = 0;
  while (line.charCodeAt(index) === 0x20) index += 1;
  return index;
}

function isBlankOrComment(line: string): boolean {
  const indent = indentOf(line);
  return indent === line.length || line[indent] === '#';
}

function isListItem(line: string, indent: number): boolean {
  return line[indent] === '-' && (line.length === indent + 1 || line[indent + 1] === ' ');
}

function isCollection(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/** A deep copy of a list or mapping this reader built (plain data only). */
function copyOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyOf);
  if (!isCollection(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = copyOf(item);
  return copy;
}

/**
 * One value as read: `value` as the YAML library's `toJS` gives it; `written` is a scalar's text as
 * the author wrote it, or for a mapping directly under the frontmatter (`metadata`) the mapping of
 * its entries as written (see `SimpleFrontmatter.written`).
 */
interface Reading {
  value: unknown;
  written: unknown;
}

const nullReading: Reading = { value: null, written: '' };

/**
 * Reads the lines of one YAML text; each method returns undefined to refuse it. With `fieldsOnly`
 * it accepts and refuses exactly the same texts, but keeps no as-written copy and no key lines,
 * only the top-level `name` and `description` as written (`listed`).
 */
class SimpleFrontmatterReader {
  private index = 0;
  sawColonValue = false;
  readonly listed: { name?: unknown; description?: unknown } = {};

  constructor(
    private readonly lines: readonly string[],
    private readonly lineOffset: number,
    private readonly fieldsOnly = false,
  ) {}

  /** Index of the next line that is not blank or a comment (lines.length when there is none). */
  private nextContentLine(): number {
    let index = this.index;
    while (index < this.lines.length && isBlankOrComment(this.lines[index] as string)) index += 1;
    return index;
  }

  read(): SimpleFrontmatter | undefined {
    const keyLines = new Map<string, number>();
    const mapping = this.readMapping(0, 0, keyLines);
    if (mapping === undefined) return undefined;
    if (this.fieldsOnly)
      return { kind: 'read', values: mapping.value as Record<string, unknown>, written: {}, keyLines };
    return {
      kind: 'read',
      values: mapping.value as Record<string, unknown>,
      written: mapping.written as Record<string, unknown>,
      keyLines,
    };
  }

  /**
   * A block mapping whose keys are at `indent`, `depth` levels below the frontmatter (which is
   * depth 0 and must take every line). It ends at the first content line indented less.
   */
  private readMapping(indent: number, depth: number, keyLines?: Map<string, number>): Reading | undefined {
    const value: Record<string, unknown> = {};
    // What the caller keeps as written: the frontmatter's entries and those of a mapping directly under it.
    const written: Record<string, unknown> | undefined = depth <= 1 && !this.fieldsOnly ? {} : undefined;
    for (;;) {
      const next = this.nextContentLine();
      const line = this.lines[next];
      if (line === undefined) break;
      const lineIndent = indentOf(line);
      if (lineIndent < indent) break;
      if (lineIndent > indent) return undefined;
      const entry = readKeyLine(line, indent);
      if (entry === undefined || Object.hasOwn(value, entry.key)) return undefined;
      this.index = next + 1;
      if (!this.fieldsOnly) keyLines?.set(entry.key, this.index + this.lineOffset);
      const item = entry.rest === '' ? this.readNested(indent, depth) : this.readValue(entry.rest, indent);
      if (item === undefined) return undefined;
      value[entry.key] = item.value;
      if (written !== undefined) {
        // Under a nested mapping (metadata) the YAML path keeps a collection as `toJS` made it, as its own copy.
        written[entry.key] = depth === 1 && isCollection(item.value) ? copyOf(item.value) : item.written;
      } else if (depth === 0 && (entry.key === 'name' || entry.key === 'description')) {
        this.listed[entry.key] = item.written;
      }
    }
    return { value, written };
  }

  /** The value after `key: ` on the key's line, the key being at `indent`. */
  private readValue(rest: string, indent: number): Reading | undefined {
    if (rest[0] === '|' || rest[0] === '>') {
      const text = this.readBlockScalar(rest, indent);
      return text === undefined ? undefined : { value: text, written: text };
    }
    if (rest[0] === '[') {
      const list = readFlowList(rest);
      return list === undefined ? undefined : { value: list, written: list };
    }
    const scalar = readScalar(rest);
    if (scalar === undefined) return undefined;
    if ('kind' in scalar) {
      this.sawColonValue = true;
      return { value: undefined, written: undefined };
    }
    return scalar;
  }

  /**
   * What follows `key:` with nothing after the colon (the key at `indent`, in a mapping at
   * `depth`): a list at the key's indentation or deeper, a mapping indented deeper, else null.
   */
  private readNested(indent: number, depth: number): Reading | undefined {
    const line = this.lines[this.nextContentLine()];
    if (line === undefined) return nullReading;
    const nextIndent = indentOf(line);
    const listed = nextIndent >= indent && isListItem(line, nextIndent);
    if (!listed && nextIndent <= indent) return nullReading;
    if (depth + 1 > maxDepth) return undefined;
    return listed ? this.readList(nextIndent, indent) : this.readMapping(nextIndent, depth + 1);
  }

  /**
   * A block list whose `-` are at `indent`, the value of a key at `keyIndent`. A line at `indent`
   * that is not an item ends it only when it can be the next key of that mapping.
   */
  private readList(indent: number, keyIndent: number): Reading | undefined {
    const value: unknown[] = [];
    for (;;) {
      const next = this.nextContentLine();
      const line = this.lines[next];
      if (line === undefined) break;
      const lineIndent = indentOf(line);
      if (lineIndent < indent) break;
      if (lineIndent > indent) return undefined;
      if (!isListItem(line, indent)) {
        if (indent === keyIndent) break;
        return undefined;
      }
      this.index = next + 1;
      const itemKey = line[indent + 1] === ' ' && line[indent + 2] !== ' ' ? readKeyLine(line, indent + 2) : undefined;
      if (itemKey !== undefined) {
        const mapping = this.readItemMapping(line, indent + 2);
        if (mapping === undefined) return undefined;
        value.push(mapping);
        continue;
      }
      const item = readScalar(trimSpaces(line.slice(indent + 1)));
      // `- Use when: x` is a mapping with a key of two words, not a broken value: refused like every other.
      if (item === undefined || 'kind' in item) return undefined;
      value.push(item.value);
    }
    return { value, written: value };
  }

  /**
   * A mapping that starts on a list item's line (`- name: x`), its keys at `indent` (just after
   * `- `), each with a one-line scalar or flow list; anything else (a nested collection, a block
   * scalar, a value holding `: `) is refused.
   */
  private readItemMapping(firstLine: string, indent: number): Record<string, unknown> | undefined {
    const value: Record<string, unknown> = {};
    let line = firstLine;
    for (;;) {
      const entry = readKeyLine(line, indent);
      if (entry === undefined || entry.rest === '' || Object.hasOwn(value, entry.key)) return undefined;
      if (entry.rest[0] === '[') {
        const list = readFlowList(entry.rest);
        if (list === undefined) return undefined;
        value[entry.key] = list;
      } else {
        const scalar = readScalar(entry.rest);
        if (scalar === undefined || 'kind' in scalar) return undefined;
        value[entry.key] = scalar.value;
      }
      const next = this.nextContentLine();
      const following = this.lines[next];
      if (following === undefined || indentOf(following) < indent) return value;
      if (indentOf(following) > indent) return undefined;
      this.index = next + 1;
      line = following;
    }
  }

  /**
   * A `|`, `|-`, `>` or `>-` block scalar whose key is at `indent`. Its first line sets the content
   * indentation; leading blank lines, lines of spaces only, and (when folded) more-indented lines
   * are refused, as their reading has rules of its own.
   */
  private readBlockScalar(header: string, indent: number): string | undefined {
    if (!blockHeaders.has(header)) return undefined;
    const content: string[] = [];
    let contentIndent = -1;
    while (this.index < this.lines.length) {
      const line = this.lines[this.index] as string;
      if (line === '') {
        if (contentIndent === -1) return undefined;
        content.push('');
        this.index += 1;
        continue;
      }
      const lineIndent = indentOf(line);
      if (lineIndent === line.length) return undefined;
      if (contentIndent === -1) {
        if (lineIndent <= indent) return undefined;
        contentIndent = lineIndent;
      }
      if (lineIndent < contentIndent) {
        if (lineIndent > indent) return undefined;
        break;
      }
      content.push(line.slice(contentIndent));
      this.index += 1;
    }
    if (contentIndent === -1) return undefined;
    while (content.length > 0 && content[content.length - 1] === '') content.pop();
    const folded = header[0] === '>';
    if (folded && content.some((line) => line.startsWith(' '))) return undefined;
    const text = folded ? foldLines(content) : content.join('\n');
    return header.endsWith('-') ? text : `${text}\n`;
  }
}

/** Folds a `>` scalar's lines: a single line break becomes a space, each blank line a line break. */
function foldLines(lines: readonly string[]): string {
  let text = lines[0] ?? '';
  let blanks = 0;
  for (let index = 1; index < lines.length; index += 1) {
    const line = lines[index] as string;
    if (line === '') {
      blanks += 1;
      continue;
    }
    text += blanks > 0 ? '\n'.repeat(blanks) : ' ';
    text += line;
    blanks = 0;
  }
  return text;
}

/**
 * Reads `yaml` (LF line ends) if it has the simple shape. Returns the mapping, `colon-values` when
 * the only thing outside the shape is plain values holding `: `, or undefined for the full parser.
 * `firstLine` is the line of the file the YAML starts on, so `keyLines` are the file's lines.
 */
export function readSimpleFrontmatter(yaml: string, firstLine = 1): SimpleFrontmatter | ColonValuesFound | undefined {
  if (hasUnusualCharacter(yaml)) return undefined;
  const reader = new SimpleFrontmatterReader(yaml.split('\n'), firstLine - 1);
  const result = reader.read();
  if (result === undefined) return undefined;
  return reader.sawColonValue ? colonValues : result;
}

/**
 * `name` and `description` of `yaml` (LF line ends) as written, read by the same grammar as
 * readSimpleFrontmatter without building what a listing does not show. Undefined whenever
 * readSimpleFrontmatter would not give `read` (the full parse says what the text holds), and when
 * either field is missing, not a string, or blank: the full parse falls back or throws there.
 */
export function readSimpleFrontmatterFields(yaml: string): FrontmatterFields | undefined {
  if (hasUnusualCharacter(yaml)) return undefined;
  const reader = new SimpleFrontmatterReader(yaml.split('\n'), 0, true);
  const result = reader.read();
  if (result === undefined || reader.sawColonValue) return undefined;
  const { name, description } = reader.listed;
  if (typeof name !== 'string' || typeof description !== 'string' || name.trim() === '' || description.trim() === '')
    return undefined;
  return { name, description, modelInvocable: modelInvocableFromFrontmatter(result.values) };
}
