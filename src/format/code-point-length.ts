const highSurrogate = /[\ud800-\udbff]/;

/**
 * Length in Unicode code points, as the specification and the reference validator count
 * (Python's `len`); `String.length` counts UTF-16 units and would double every emoji.
 */
export function codePointLength(text: string): number {
  // Most texts hold no surrogate at all; the native search spares them the loop below, which a
  // cold listing (every description counted before the code is optimised) felt.
  if (!highSurrogate.test(text)) return text.length;
  let length = text.length;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length -= 1;
        index += 1;
      }
    }
  }
  return length;
}
