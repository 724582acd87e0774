import { Buffer, isUtf8 } from 'node:buffer';

export interface DecodedSkillText {
  text: string;
  /** True when some bytes were not UTF-8 and became U+FFFD. */
  replacedInvalidBytes: boolean;
}

/**
 * Turns the bytes of a SKILL.md into text. Invalid UTF-8 is replaced rather than refused: one bad
 * byte in a long body should not hide a skill whose name and description are fine, and the caller
 * turns `replacedInvalidBytes` into a warning (lenient) or an error (strict).
 */
export function decodeSkillText(input: string | Uint8Array): DecodedSkillText {
  if (typeof input === 'string') return { text: input, replacedInvalidBytes: false };
  // isUtf8 and Buffer#toString are native and far quicker than a fatal TextDecoder on large files.
  const bytes = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const text = bytes.toString('utf8');
  // Every invalid sequence decodes to U+FFFD, so a text without one came from valid UTF-8 and the
  // second pass over the bytes is needed only when the file holds a U+FFFD (written or replaced).
  return { text, replacedInvalidBytes: text.includes('\uFFFD') && !isUtf8(bytes) };
}

/** Drops a leading byte-order mark and turns CRLF and lone CR line ends into LF (line numbers are unchanged). */
export function normalizeSkillText(text: string): string {
  const withoutMark = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return withoutMark.includes('\r') ? withoutMark.replace(/\r\n?/g, '\n') : withoutMark;
}
