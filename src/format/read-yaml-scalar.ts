// One-line YAML scalars and flow lists as the fast frontmatter reader reads them
// (read-simple-frontmatter.ts): exactly as the YAML library's core schema would, or refused with
// undefined when there is any doubt.

/**
 * The text is in the shape except for plain values holding `: ` (or ending in `:`), which the full
 * YAML parser always refuses; the caller applies the colon fallback and reads the repaired text.
 */
export interface ColonValuesFound {
  kind: 'colon-values';
}

/**
 * The text without the spaces around it. Only spaces: YAML's white space is the space and the tab
 * (a tab sends the text to the full parser), where String's trim() also takes U+00A0, U+3000 and
 * the other Unicode spaces, which belong to a YAML value (`description: d\u00a0` ends in one).
 */
export function trimSpaces(text: string): string {
  let start = 0;
  while (text.charCodeAt(start) === 0x20) start += 1;
  let end = text.length;
  while (end > start && text.charCodeAt(end - 1) === 0x20) end -= 1;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

function trimEndSpaces(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x20) end -= 1;
  return end === text.length ? text : text.slice(0, end);
}

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

export const colonValues: ColonValuesFound = { kind: 'colon-values' };

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

/**
 * A double-quoted scalar on one line, with the escapes JSON also has; `start` is just after the
 * opening quote. Returns the value and the index after the closing quote.
 */
function scanDoubleQuoted(text: string, start: number): { value: string; end: number } | undefined {
  let value = '';
  let index = start;
  for (;;) {
    const quote = text.indexOf('"', index);
    if (quote === -1) return undefined;
    const backslash = text.indexOf('\\', index);
    if (backslash === -1 || backslash > quote) {
      value += text.slice(index, quote);
      return { value, end: quote + 1 };
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
}

/** A single-quoted scalar on one line (`''` is a quote); `start` is just after the opening quote. */
function scanSingleQuoted(text: string, start: number): { value: string; end: number } | undefined {
  let value = '';
  let index = start;
  for (;;) {
    const quote = text.indexOf("'", index);
    if (quote === -1) return undefined;
    value += text.slice(index, quote);
    if (text[quote + 1] !== "'") return { value, end: quote + 1 };
    value += "'";
    index = quote + 2;
  }
}

/** A whole value that is one quoted scalar (nothing but spaces after the closing quote). */
function readQuoted(text: string): Scalar | undefined {
  const scanned = text[0] === '"' ? scanDoubleQuoted(text, 1) : scanSingleQuoted(text, 1);
  if (scanned === undefined || trimEndSpaces(text.slice(scanned.end)) !== '') return undefined;
  return { value: scanned.value, written: scanned.value };
}

/** A plain scalar's value by the core schema, or undefined for a number this reader does not convert. */
function resolvePlain(plain: string): Scalar | undefined {
  // The written text of a null is '' (what the parser's callers read for `name:` too).
  if (nullScalar.test(plain)) return { value: null, written: '' };
  const boolean = booleanScalars.get(plain);
  if (boolean !== undefined) return { value: boolean, written: plain };
  if (plainDecimal.test(plain)) return { value: Number(plain), written: plain };
  if (otherNumber.test(plain)) return undefined;
  return { value: plain, written: plain };
}

/** A one-line value after `key: ` or `- `, without its leading spaces and not empty. */
export function readScalar(text: string): ScalarReading {
  if (text === '') return undefined;
  const first = text[0] as string;
  if (first === '"' || first === "'") return readQuoted(text);
  if (indicatorStart.has(first)) return undefined;
  const plain = trimEndSpaces(text);
  if (plain.includes(' #')) return undefined;
  if (plain.includes(': ') || plain.endsWith(':')) return colonValues;
  return resolvePlain(plain);
}

// A plain item of a flow list, kept to characters that mean nothing in flow context (no `,[]{}:#`
// and no quote or indicator at the start), so that its end is the next `,` or `]`.
const plainFlowItem = /^[A-Za-z0-9_][A-Za-z0-9_ ./()+-]*$/;

/**
 * A flow list on one line (`[a, 'b c', "d"]`) of quoted scalars and plain items of `plainFlowItem`,
 * with nothing after the `]`; `[]` is an empty list. Trailing or doubled commas are refused.
 */
export function readFlowList(text: string): unknown[] | undefined {
  const items: unknown[] = [];
  let index = 1;
  while (text[index] === ' ') index += 1;
  if (text[index] === ']') return trimEndSpaces(text.slice(index + 1)) === '' ? items : undefined;
  for (;;) {
    while (text[index] === ' ') index += 1;
    const first = text[index];
    if (first === '"' || first === "'") {
      const scanned = first === '"' ? scanDoubleQuoted(text, index + 1) : scanSingleQuoted(text, index + 1);
      if (scanned === undefined) return undefined;
      items.push(scanned.value);
      index = scanned.end;
      while (text[index] === ' ') index += 1;
    } else {
      let end = index;
      while (end < text.length && text[end] !== ',' && text[end] !== ']') end += 1;
      const plain = trimEndSpaces(text.slice(index, end));
      if (!plainFlowItem.test(plain)) return undefined;
      const item = resolvePlain(plain);
      if (item === undefined) return undefined;
      items.push(item.value);
      index = end;
    }
    if (text[index] === ']') return trimEndSpaces(text.slice(index + 1)) === '' ? items : undefined;
    if (text[index] !== ',') return undefined;
    index += 1;
  }
}
