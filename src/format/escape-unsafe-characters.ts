/**
 * Characters that change how text reads without being visible as themselves: controls (line
 * breaks, escape sequences), format characters (bidirectional overrides, zero-width characters),
 * line and paragraph separators, and lone surrogates. A name holding one can start a new line or
 * section in the text a model reads, or show one name while being another.
 */
const unsafeCharacter = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
const unsafeCharacters = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

function codeUnits(character: string): string {
  let escaped = '';
  for (let index = 0; index < character.length; index += 1)
    escaped += `\\u${character.charCodeAt(index).toString(16).toUpperCase().padStart(4, '0')}`;
  return escaped;
}

/** Whether `text` holds a character that `escapeUnsafeCharacters` would escape. */
export function hasUnsafeCharacters(text: string): boolean {
  return unsafeCharacter.test(text);
}

/** The first such character as `U+XXXX`, for an error message. */
export function firstUnsafeCharacter(text: string): string | undefined {
  const match = unsafeCharacter.exec(text);
  return match === null
    ? undefined
    : `U+${(match[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * `text` with every control, format and separator character written as `\uXXXX` (a pair for one
 * beyond the BMP), for a name rendered into text a model or a person reads. Other text, `\` included,
 * is left as it is: the point is that nothing invisible or line-breaking survives.
 */
export function escapeUnsafeCharacters(text: string): string {
  return text.replace(unsafeCharacters, codeUnits);
}

/** `text` as a JSON string literal whose non-ASCII invisibles are escaped too (JSON leaves them raw). */
export function quoteForDisplay(text: string): string {
  return JSON.stringify(text).replace(unsafeCharacters, codeUnits);
}
