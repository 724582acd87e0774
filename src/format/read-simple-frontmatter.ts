/**
 * A reader for the frontmatter shapes almost every real skill uses, because the full YAML library
 * is what made listing many skills slow. For the texts it accepts it gives exactly what the
 * library gives (its `toJS` mapping, and each scalar's text as written); everything else is
 * refused with `undefined` and the caller parses the full way. Accepted:
 *
 * - top-level `key: value` lines, a value being a one-line plain, single- or double-quoted scalar,
 *   or a `|`, `|-`, `>`, `>-` block scalar;
 * - `key:` followed by a mapping of such lines one level deeper, or by a list of `- value` items;
 * - blank lines and comment lines between entries.
 *
 * Refused (the full parser reads them): tabs and control characters anywhere, flow collections,
 * anchors, aliases, tags, multi-line plain or quoted scalars, comments after a value, deeper
 * nesting, duplicate keys, keys that are not simple words, numbers other than plain decimals,
 * and any escape beyond JSON's.
 */

export interface SimpleFrontmatter {
  kind: 'read';
  /** The mapping, as the YAML library's `toJS` gives it for the same text. */
  values: Record<string, unknown>;
  /** The same mapping with every scalar as the author wrote it (`1.10`, `True`; '' for null). */
  written: Record<string, unknown>;
  /** 1-based line (within the YAML text) of each top-level key. */
  keyLines: Map<string, number>;
}

/**
 * The text is in the shape except for plain values holding `: ` (or ending in `:`), which the full
 * YAML parser always refuses; the caller applies the colon fallback and reads the repaired text.
 */
export interface ColonValuesFound {
  kind: 'colon-values';
}

// Characters the YAML library may treat specially or refuse (controls, tab, NEL, BOM, line and
// paragraph separators, non-characters, lone surrogates): their presence anywhere means the full parser.
const unusualCharacter =
  /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// The same characters plus every surrogate, without look-arounds: a much quicker first test that
// lets most texts (those without emoji) skip the exact one.
const unusualOrSurrogate = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]/;

const simpleKey = /^[A-Za-z_][A-Za-z0-9_-]*$/;
// Keys the core schema would read as a boolean or null, and the key a plain object cannot hold as data.
const specialKeys = new Set(['true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'null', 'Null', 'NULL', '__proto__']);

const nullScalar = /^(?:~|[Nn]ull|NULL)$/;
const booleanScalars = new Map<string, boolean>([
  ['true', true],
  ['True', true],
  ['TRUE', true],
  ['false', false],
  ['False', false],
  ['FALSE', false],
]);
// Decimals short enough that Number() and the library's parseInt/parseFloat agree exactly.
const plainDecimal = /^[0-9]{1,15}(?:\.[0-9]{1,15})?$/;
// yaml 2's core-schema tests for int (incl. 0o, 0x, signs) and float (incl. exponents, .inf, .nan):
// a plain scalar matching it but not `plainDecimal` is a number this reader does not convert.
const otherNumber =
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)$/;

// First characters that make a value something other than a plain scalar (or a plain scalar whose
// reading depends on what follows, like `-x` or `?x`); quotes and block headers are handled separately.
const indicatorStart = new Set(['-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`']);

const blockHeaders = new Set(['|', '|-', '>', '>-']);

const colonValues: ColonValuesFound = { kind: 'colon-values' };

interface Scalar {
  value: unknown;
  written: string;
}

/** What one value reads as: the scalar, `colon-values` for a plain value the full parser refuses, else undefined. */
type ScalarReading = Scalar | ColonValuesFound | undefined;

const jsonEscapes: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
};

/** A double-quoted scalar on one line, with the escapes JSON also has; `text` starts after the opening quote. */
function readDoubleQuoted(text: string): string | undefined {
  let value = '';
  let index = 0;
  for (;;) {
    const quote = text.indexOf('"', index);
    if (quote === -1) return undefined;
    const backslash = text.indexOf('\\', index);
    if (backslash === -1 || backslash > quote) {
      value += text.slice(index, quote);
      index = quote + 1;
      break;
    }
    value += text.slice(index, backslash);
    const escaped = text[backslash + 1] ?? '';
    if (escaped === 'u') {
      const hex = text.slice(backslash + 2, backslash + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined;
      const code = Number.parseInt(hex, 16);
      // A lone surrogate, a control or a non-character could be read differently: leave it to the full parser.
      if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || (code >= 0xd800 && code <= 0xdfff) || code >= 0xfffe)
        return undefined;
      value += String.fromCharCode(code);
      index = backslash + 6;
    } else {
      const replacement = jsonEscapes[escaped];
      if (replacement === undefined) return undefined;
      value += replacement;
      index = backslash + 2;
    }
  }
  return text.slice(index).trimEnd() === '' ? value : undefined;
}

/** A single-quoted scalar on one line (`''` is a quote); `text` starts after the opening quote. */
function readSingleQuoted(text: string): string | undefined {
  let value = '';
  let index = 0;
  for (;;) {
    const quote = text.indexOf("'", index);
    if (quote === -1) return undefined;
    value += text.slice(index, quote);
    if (text[quote + 1] === "'") {
      value += "'";
      index = quote + 2;
      continue;
    }
    index = quote + 1;
    break;
  }
  return text.slice(index).trimEnd() === '' ? value : undefined;
}

function quoted(value: string | undefined): Scalar | undefined {
  return value === undefined ? undefined : { value, written: value };
}

/** A one-line value after `key: ` or `- `, without its leading spaces and not empty. */
function readScalar(text: string): ScalarReading {
  if (text === '') return undefined;
  const first = text[0] as string;
  if (first === '"') return quoted(readDoubleQuoted(text.slice(1)));
  if (first === "'") return quoted(readSingleQuoted(text.slice(1)));
  if (indicatorStart.has(first)) return undefined;
  const plain = text.trimEnd();
  if (plain.includes(' #')) return undefined;
  if (plain.includes(': ') || plain.endsWith(':')) return colonValues;
  // The written text of a null is '' (what the parser's callers read for `name:` too).
  if (nullScalar.test(plain)) return { value: null, written: '' };
  const boolean = booleanScalars.get(plain);
  if (boolean !== undefined) return { value: boolean, written: plain };
  if (plainDecimal.test(plain)) return { value: Number(plain), written: plain };
  if (otherNumber.test(plain)) return undefined;
  return { value: plain, written: plain };
}

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
  if (!simpleKey.test(key) || specialKeys.has(key)) return undefined;
  if (colon + 1 === line.length) return { key, rest: '' };
  if (line[colon + 1] !== ' ') return undefined;
  return { key, rest: line.slice(colon + 2).trim() };
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

/** Reads the lines of one YAML text; each method returns undefined to refuse it. */
class SimpleFrontmatterReader {
  private index = 0;
  sawColonValue = false;

  constructor(private readonly lines: readonly string[]) {}

  /** Index of the next line that is not blank or a comment (lines.length when there is none). */
  private nextContentLine(): number {
    let index = this.index;
    while (index < this.lines.length && isBlankOrComment(this.lines[index] as string)) index += 1;
    return index;
  }

  read(): SimpleFrontmatter | undefined {
    const values: Record<string, unknown> = {};
    const written: Record<string, unknown> = {};
    const keyLines = new Map<string, number>();
    for (;;) {
      this.index = this.nextContentLine();
      if (this.index >= this.lines.length) return { kind: 'read', values, written, keyLines };
      const entry = readKeyLine(this.lines[this.index] as string, 0);
      if (entry === undefined || keyLines.has(entry.key)) return undefined;
      this.index += 1;
      keyLines.set(entry.key, this.index);
      const value = entry.rest === '' ? this.readCollection(0, true) : this.readValue(entry.rest, 0);
      if (value === undefined) return undefined;
      values[entry.key] = value.value;
      written[entry.key] = value.written;
    }
  }

  /** The value after `key: ` on the key's line, the key being at `indent`. */
  private readValue(rest: string, indent: number): { value: unknown; written: unknown } | undefined {
    if (rest[0] === '|' || rest[0] === '>') {
      const text = this.readBlockScalar(rest, indent);
      return text === undefined ? undefined : { value: text, written: text };
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
   * What follows `key:` with nothing after the colon (the key at `indent`): null, or, only under a
   * top-level key, a list or a mapping one level deeper.
   */
  private readCollection(indent: number, mappingAllowed: boolean): { value: unknown; written: unknown } | undefined {
    const next = this.nextContentLine();
    const line = this.lines[next];
    const nextIndent = line === undefined ? 0 : indentOf(line);
    if (line !== undefined && nextIndent >= indent && isListItem(line, nextIndent))
      return mappingAllowed ? this.readList(nextIndent) : undefined;
    if (line === undefined || nextIndent <= indent) return { value: null, written: '' };
    return mappingAllowed ? this.readMapping(nextIndent) : undefined;
  }

  private readList(indent: number): { value: unknown[]; written: unknown[] } | undefined {
    const value: unknown[] = [];
    const written: unknown[] = [];
    for (;;) {
      const next = this.nextContentLine();
      const line = this.lines[next];
      if (line === undefined) break;
      const lineIndent = indentOf(line);
      if (lineIndent < indent || (lineIndent === indent && !isListItem(line, indent))) break;
      if (lineIndent !== indent) return undefined;
      this.index = next + 1;
      const item = readScalar(line.slice(indent + 1).trim());
      // `- a: b` is a mapping in the list, not a broken value: refused like every non-scalar item.
      if (item === undefined || 'kind' in item) return undefined;
      value.push(item.value);
      written.push(item.written);
    }
    return this.endsAtTopLevel() ? { value, written } : undefined;
  }

  private readMapping(
    indent: number,
  ): { value: Record<string, unknown>; written: Record<string, unknown> } | undefined {
    const value: Record<string, unknown> = {};
    const written: Record<string, unknown> = {};
    for (;;) {
      const next = this.nextContentLine();
      const line = this.lines[next];
      if (line === undefined || indentOf(line) === 0) break;
      if (indentOf(line) !== indent) return undefined;
      const entry = readKeyLine(line, indent);
      if (entry === undefined || Object.hasOwn(value, entry.key)) return undefined;
      this.index = next + 1;
      const item = entry.rest === '' ? this.readCollection(indent, false) : this.readValue(entry.rest, indent);
      if (item === undefined) return undefined;
      value[entry.key] = item.value;
      written[entry.key] = item.written;
    }
    return { value, written };
  }

  /** After a list, the next entry must be a top-level key (or nothing): anything else is refused. */
  private endsAtTopLevel(): boolean {
    const line = this.lines[this.nextContentLine()];
    return line === undefined || indentOf(line) === 0;
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
 */
export function readSimpleFrontmatter(yaml: string): SimpleFrontmatter | ColonValuesFound | undefined {
  if (unusualOrSurrogate.test(yaml) && unusualCharacter.test(yaml)) return undefined;
  const reader = new SimpleFrontmatterReader(yaml.split('\n'));
  const result = reader.read();
  if (result === undefined) return undefined;
  return reader.sawColonValue ? colonValues : result;
}
