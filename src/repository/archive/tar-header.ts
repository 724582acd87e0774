// The header-level pieces of tar that the whole-archive reader (tar-reader.ts) and the streamed
// workspace snapshot reader (src/worker/custody/) share, so both apply the same parsing and checks.
import { decodeEntryName } from './decode-entry-name.js';
import { UnsafeArchiveError } from './errors.js';

/** Tar is read and written in 512-byte blocks. */
export const tarBlockSize = 512;
const blockSize = tarBlockSize;
/** pax and GNU long-name records only carry names and sizes; anything larger is not a real one. */
export const maxMetadataBytes = 1024 * 1024;

/** What pax or GNU long-name records say about the entry that follows them. */
export interface PendingNames {
  path?: string;
  size?: number;
  linkpath?: string;
}

export function field(header: Uint8Array, start: number, length: number): Uint8Array {
  const slice = header.subarray(start, start + length);
  const end = slice.indexOf(0);
  return end === -1 ? slice : slice.subarray(0, end);
}

export function parseNumber(header: Uint8Array, start: number, length: number, what: string, entry: string): number {
  const bytes = header.subarray(start, start + length);
  if ((bytes[0] ?? 0) & 0x80) {
    // GNU base-256: only sizes far beyond any limit use it, and the budget refuses those anyway.
    let value = (bytes[0] as number) & 0x7f;
    for (const byte of bytes.subarray(1)) {
      value = value * 256 + byte;
      if (!Number.isSafeInteger(value)) throw new UnsafeArchiveError(`the ${what} field is out of range`, entry);
    }
    return value;
  }
  const text = Buffer.from(bytes)
    .toString('latin1')
    .replace(/[\0 ]+$/, '')
    .replace(/^ +/, '');
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text))
    throw new UnsafeArchiveError(`the ${what} field ${JSON.stringify(text)} is not an octal number`, entry);
  return Number.parseInt(text, 8);
}

export function checksumMatches(header: Uint8Array, stored: number): boolean {
  let unsigned = 0;
  let signed = 0;
  for (let index = 0; index < blockSize; index += 1) {
    const byte = index >= 148 && index < 156 ? 0x20 : (header[index] as number);
    unsigned += byte;
    signed += byte > 127 ? byte - 256 : byte;
  }
  return stored === unsigned || stored === signed;
}

export function parsePaxRecords(data: Uint8Array, entry: string): PendingNames {
  const names: PendingNames = {};
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    const length = space === -1 ? Number.NaN : Number(Buffer.from(data.subarray(offset, space)).toString('latin1'));
    if (
      !Number.isSafeInteger(length) ||
      length <= 0 ||
      offset + length > data.length ||
      data[offset + length - 1] !== 0x0a
    ) {
      throw new UnsafeArchiveError('a pax extended header record is malformed', entry);
    }
    const record = decodeEntryName(data.subarray(space + 1, offset + length - 1));
    const equals = record.indexOf('=');
    if (equals === -1) throw new UnsafeArchiveError('a pax extended header record has no "="', entry);
    const key = record.slice(0, equals);
    const value = record.slice(equals + 1);
    if (key === 'path') names.path = value;
    if (key === 'linkpath') names.linkpath = value;
    if (key === 'size') {
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
        throw new UnsafeArchiveError(`pax size ${JSON.stringify(value)} is not a number`, entry);
      names.size = Number(value);
    }
    offset += length;
  }
  return names;
}

export function isZeroBlock(block: Uint8Array): boolean {
  return block.every((byte) => byte === 0);
}
