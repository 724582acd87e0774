import type { ArchiveEntry } from './archive-entry.js';
import type { ArchiveBudget } from './archive-limits.js';
import { ArchivePathSet, cleanArchivePath } from './archive-path.js';
import { decodeEntryName } from './decode-entry-name.js';
import { UnsafeArchiveError } from './errors.js';

const blockSize = 512;
/** pax and GNU long-name records only carry names and sizes; anything larger is not a real one. */
const maxMetadataBytes = 1024 * 1024;

interface PendingNames {
  path?: string;
  size?: number;
}

function field(header: Uint8Array, start: number, length: number): Uint8Array {
  const slice = header.subarray(start, start + length);
  const end = slice.indexOf(0);
  return end === -1 ? slice : slice.subarray(0, end);
}

function parseNumber(header: Uint8Array, start: number, length: number, what: string, entry: string): number {
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

function checksumMatches(header: Uint8Array, stored: number): boolean {
  let unsigned = 0;
  let signed = 0;
  for (let index = 0; index < blockSize; index += 1) {
    const byte = index >= 148 && index < 156 ? 0x20 : (header[index] as number);
    unsigned += byte;
    signed += byte > 127 ? byte - 256 : byte;
  }
  return stored === unsigned || stored === signed;
}

function parsePaxRecords(data: Uint8Array, entry: string): PendingNames {
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
    if (key === 'size') {
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
        throw new UnsafeArchiveError(`pax size ${JSON.stringify(value)} is not a number`, entry);
      names.size = Number(value);
    }
    offset += length;
  }
  return names;
}

function isZeroBlock(block: Uint8Array): boolean {
  return block.every((byte) => byte === 0);
}

/**
 * Reads a whole tar (ustar, pax and GNU long names) into checked entries. Regular files and folders
 * are all it accepts: links, devices and FIFOs are refused, since a link inside an extracted tree
 * is how an archive reaches outside it.
 */
export function readTarEntries(tar: Uint8Array, budget: ArchiveBudget): ArchiveEntry[] {
  const entries: ArchiveEntry[] = [];
  const paths = new ArchivePathSet();
  let pending: PendingNames = {};
  let offset = 0;
  for (;;) {
    if (offset + blockSize > tar.length)
      throw new UnsafeArchiveError('the tar ends without its end-of-archive block (truncated?)');
    const header = tar.subarray(offset, offset + blockSize);
    if (isZeroBlock(header)) return entries;
    const headerName = decodeEntryName(field(header, 0, 100));
    const magic = Buffer.from(header.subarray(257, 263)).toString('latin1');
    const prefix = magic.startsWith('ustar') ? decodeEntryName(field(header, 345, 155)) : '';
    let rawName = pending.path ?? (prefix === '' ? headerName : `${prefix}/${headerName}`);
    if (!checksumMatches(header, parseNumber(header, 148, 8, 'checksum', rawName))) {
      throw new UnsafeArchiveError(
        `the header at byte ${offset} fails its checksum (not a tar, or corrupted)`,
        rawName,
      );
    }
    const headerSize = parseNumber(header, 124, 12, 'size', rawName);
    const size = pending.size ?? headerSize;
    const type = String.fromCharCode(header[156] as number);
    const dataStart = offset + blockSize;
    if (dataStart + size > tar.length)
      throw new UnsafeArchiveError(`the entry claims ${size} bytes but the tar ends first (truncated?)`, rawName);
    const data = tar.subarray(dataStart, dataStart + size);
    offset = dataStart + Math.ceil(size / blockSize) * blockSize;

    if (type === 'x' || type === 'g' || type === 'L' || type === 'K') {
      if (size > maxMetadataBytes)
        throw new UnsafeArchiveError(`a ${size}-byte metadata record is larger than any real one`, rawName);
      // A global pax header sets defaults for every entry; none of its keys matter to what is extracted.
      if (type === 'x') pending = { ...pending, ...parsePaxRecords(data, rawName) };
      if (type === 'L') pending = { ...pending, path: decodeEntryName(field(data, 0, data.length)) };
      continue;
    }
    pending = {};
    rawName ||= '(empty name)';
    if (type === '1' || type === '2')
      throw new UnsafeArchiveError(`${type === '1' ? 'hard' : 'symbolic'} links are not allowed`, rawName);
    if (type === '3' || type === '4' || type === '6')
      throw new UnsafeArchiveError('devices and FIFOs are not allowed', rawName);
    const isDirectory = type === '5';
    if (!isDirectory && type !== '0' && type !== '\0' && type !== '7') {
      throw new UnsafeArchiveError(`tar entry type ${JSON.stringify(type)} is not supported`, rawName);
    }
    const path = cleanArchivePath(rawName);
    if (path === undefined) {
      if (!isDirectory) throw new UnsafeArchiveError('a file entry has no name', rawName);
      continue;
    }
    paths.add(path, isDirectory ? 'directory' : 'file', rawName);
    budget.admit(rawName, isDirectory ? 0 : size);
    const mode = parseNumber(header, 100, 8, 'mode', rawName) & 0o777;
    entries.push({
      path,
      type: isDirectory ? 'directory' : 'file',
      mode: mode === 0 ? (isDirectory ? 0o755 : 0o644) : mode,
      data: isDirectory ? Buffer.alloc(0) : Buffer.from(data),
    });
  }
}
