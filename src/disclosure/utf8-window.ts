/** A stretch of UTF-8 bytes decoded as text, with where it starts and ends in the bytes. */
export interface Utf8Window {
  text: string;
  /** Byte offset of the first byte decoded. */
  start: number;
  /** Byte offset just past the last byte decoded. */
  end: number;
}

function isContinuationByte(bytes: Uint8Array, index: number): boolean {
  const byte = bytes[index];
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/**
 * At most `maxBytes` bytes from `start`, decoded: only the window is turned into a string, however
 * large `bytes` is. Both edges move to character boundaries (the start forward, the end back), so a
 * character is never split into replacement characters and consecutive windows join up exactly.
 */
export function utf8Window(bytes: Uint8Array, start: number, maxBytes: number): Utf8Window {
  let from = Math.min(Math.max(start, 0), bytes.length);
  while (from < bytes.length && isContinuationByte(bytes, from)) from += 1;
  let end = Math.min(bytes.length, from + maxBytes);
  // A UTF-8 character is at most four bytes: back off at most three.
  for (let steps = 0; end < bytes.length && end > from && isContinuationByte(bytes, end) && steps < 3; steps += 1)
    end -= 1;
  return { text: Buffer.from(bytes.buffer, bytes.byteOffset + from, end - from).toString('utf8'), start: from, end };
}
