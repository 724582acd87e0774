/**
 * The body of every request to a sandbox worker and of every answer: one JSON header followed by
 * the raw bytes it refers to. A file's bytes travel as they are (no base64, which grew them by a
 * third and made the whole tree one string): the header holds `{ "$bytes": [offset, length] }`
 * where the value was, pointing into the bytes after the header. Layout:
 *
 *   4 bytes   length of the JSON header (unsigned, big-endian)
 *   N bytes   the JSON header, UTF-8
 *   rest      the byte sections, back to back
 *
 * Infinite numbers (no limit) travel as `{ "$number": "Infinity" }`, which JSON would make null.
 */
export function encodeWorkerMessage(value: unknown): Buffer {
  const sections: Buffer[] = [];
  let offset = 0;
  const header = JSON.stringify(value, function replacer(this: Record<string, unknown>, key: string, item: unknown) {
    // Buffer.toJSON runs before the replacer sees it: look at the raw value on the holder.
    const raw = this[key];
    if (raw instanceof Uint8Array) {
      const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
      sections.push(bytes);
      const placed = [offset, bytes.length];
      offset += bytes.length;
      return { $bytes: placed };
    }
    if (typeof raw === 'number' && !Number.isFinite(raw)) return { $number: String(raw) };
    return item;
  });
  const headerBytes = Buffer.from(header ?? 'null', 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(headerBytes.length);
  return Buffer.concat([length, headerBytes, ...sections]);
}

/** A message that is not in the layout above, or points outside its own bytes. */
export class WorkerMessageError extends Error {
  constructor(message: string) {
    super(`malformed worker message: ${message}`);
    this.name = 'WorkerMessageError';
  }
}

/** The inverse of `encodeWorkerMessage`; byte values come back as Buffers sharing `message`'s memory. */
export function decodeWorkerMessage<T>(message: Buffer): T {
  if (message.length < 4) throw new WorkerMessageError('shorter than its 4-byte header length');
  const headerLength = message.readUInt32BE(0);
  if (headerLength > message.length - 4) throw new WorkerMessageError('header length past the end of the message');
  const sections = message.subarray(4 + headerLength);
  let parsed: unknown;
  try {
    parsed = JSON.parse(message.subarray(4, 4 + headerLength).toString('utf8'), (_key, item: unknown) => {
      if (item === null || typeof item !== 'object') return item;
      const bytes = (item as { $bytes?: unknown }).$bytes;
      if (bytes !== undefined) return sectionOf(sections, bytes);
      const number = (item as { $number?: unknown }).$number;
      if (typeof number === 'string') return Number(number);
      return item;
    });
  } catch (error) {
    if (error instanceof WorkerMessageError) throw error;
    throw new WorkerMessageError(`its header is not JSON (${(error as Error).message})`);
  }
  return parsed as T;
}

function sectionOf(sections: Buffer, placed: unknown): Buffer {
  if (!Array.isArray(placed) || placed.length !== 2 || !placed.every((part) => Number.isSafeInteger(part) && part >= 0))
    throw new WorkerMessageError('a "$bytes" value is not [offset, length]');
  const [offset, length] = placed as [number, number];
  if (offset + length > sections.length) throw new WorkerMessageError('a "$bytes" value points past the end');
  return sections.subarray(offset, offset + length);
}
