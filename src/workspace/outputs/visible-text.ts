/**
 * Characters that change how the text around them reads without being seen: C0 and C1 controls
 * (a newline or carriage return in a file name could start a line that looks like ours), line and
 * paragraph separators, bidi overrides and isolates (`report\u202etxt.exe` reads as `reportexe.txt`),
 * zero-width characters and the byte-order mark.
 */
const invisible = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/gu;

/**
 * `text` with every such character written as `\uXXXX`, for names the sandboxed process chose
 * that the model will read. A backslash is left alone: it is an ordinary file-name character.
 */
export function escapeInvisible(text: string): string {
  return text.replace(
    invisible,
    (character) => `\\u${(character.codePointAt(0) as number).toString(16).padStart(4, '0')}`,
  );
}

export function hasInvisible(text: string): boolean {
  invisible.lastIndex = 0;
  const found = invisible.test(text);
  invisible.lastIndex = 0;
  return found;
}
