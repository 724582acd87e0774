import { promisify } from 'node:util';
import { crc32, inflateRaw } from 'node:zlib';
import { mapWithConcurrency } from '../map-with-concurrency.js';
import type { ArchiveEntry } from './archive-entry.js';
import type { ArchiveBudget } from './archive-limits.js';
import { ArchivePathSet, cleanArchivePath } from './archive-path.js';
import { decodeEntryName } from './decode-entry-name.js';
import { UnsafeArchiveError } from './errors.js';

const inflate = promisify(inflateRaw);
/** Entries inflated at once on the thread pool; sizes are already checked, so memory stays within maxTotalBytes. */
const inflateConcurrency = 8;

const endOfCentralDirectorySignature = 0x06054b50;
const zip64LocatorSignature = 0x07064b50;
const zip64EndSignature = 0x06064b50;
const centralHeaderSignature = 0x02014b50;
const localHeaderSignature = 0x04034b50;
const unixHost = 3;
const fileTypeMask = 0o170000;

interface CentralEntry {
  rawName: string;
  nameBytes: Buffer;
  path: string | undefined;
  type: 'file' | 'directory';
  mode: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

function findEndOfCentralDirectory(zip: Buffer): number {
  // The record is 22 bytes plus a comment of at most 65,535; the comment must run exactly to the end.
  const lowest = Math.max(0, zip.length - 22 - 0xffff);
  for (let offset = zip.length - 22; offset >= lowest; offset -= 1) {
    if (
      zip.readUInt32LE(offset) === endOfCentralDirectorySignature &&
      offset + 22 + zip.readUInt16LE(offset + 20) === zip.length
    )
      return offset;
  }
  throw new UnsafeArchiveError('no end-of-central-directory record: not a zip, or truncated');
}

function entryKind(
  rawName: string,
  versionMadeBy: number,
  externalAttributes: number,
): { type: 'file' | 'directory'; mode: number } {
  const unixMode = versionMadeBy >>> 8 === unixHost ? externalAttributes >>> 16 : 0;
  const fileType = unixMode & fileTypeMask;
  if (fileType === 0o120000) throw new UnsafeArchiveError('symbolic links are not allowed', rawName);
  if (fileType !== 0 && fileType !== 0o100000 && fileType !== 0o040000)
    throw new UnsafeArchiveError('devices, FIFOs and sockets are not allowed', rawName);
  const isDirectory = rawName.endsWith('/') || fileType === 0o040000 || (externalAttributes & 0x10) !== 0;
  const permissions = unixMode & 0o777;
  return {
    type: isDirectory ? 'directory' : 'file',
    mode: permissions === 0 ? (isDirectory ? 0o755 : 0o644) : permissions,
  };
}

/** A 64-bit field as a number, refusing one past what a buffer in memory could ever hold. */
function readSize64(zip: Buffer, offset: number, what: string, entry?: string): number {
  const value = zip.readBigUInt64LE(offset);
  if (value > BigInt(Number.MAX_SAFE_INTEGER))
    throw new UnsafeArchiveError(`the ZIP64 ${what} ${value} is out of range`, entry);
  return Number(value);
}

interface DirectoryBounds {
  diskNumber: number;
  centralDisk: number;
  entriesOnDisk: number;
  count: number;
  centralSize: number;
  centralStart: number;
  /** Where the central directory must end: the ZIP64 end record when there is one, else the end record. */
  directoryEnd: number;
}

/**
 * The central directory's place and size from the end record, or from the ZIP64 end record its
 * locator points to when the archive has one (Info-ZIP's `zip -fz`, and any archive of more than
 * 65,535 entries or 4 GiB). The ZIP64 record must sit right before its locator, on disk 0.
 */
function readDirectoryBounds(zip: Buffer, end: number): DirectoryBounds {
  const classic: DirectoryBounds = {
    diskNumber: zip.readUInt16LE(end + 4),
    centralDisk: zip.readUInt16LE(end + 6),
    entriesOnDisk: zip.readUInt16LE(end + 8),
    count: zip.readUInt16LE(end + 10),
    centralSize: zip.readUInt32LE(end + 12),
    centralStart: zip.readUInt32LE(end + 16),
    directoryEnd: end,
  };
  const locator = end - 20;
  if (locator < 0 || zip.readUInt32LE(locator) !== zip64LocatorSignature) {
    if (classic.count === 0xffff || classic.centralSize === 0xffffffff || classic.centralStart === 0xffffffff) {
      throw new UnsafeArchiveError('the end record asks for ZIP64 values but there is no ZIP64 end record locator');
    }
    return classic;
  }
  if (zip.readUInt32LE(locator + 4) !== 0 || zip.readUInt32LE(locator + 16) !== 1)
    throw new UnsafeArchiveError('multi-part (spanned) zips are not supported');
  const record = readSize64(zip, locator + 8, 'end record offset');
  if (record + 56 > locator || zip.readUInt32LE(record) !== zip64EndSignature)
    throw new UnsafeArchiveError('the ZIP64 end record is missing or malformed');
  // Its own size field counts the bytes after the first 12; any extensible data must end at the locator.
  if (readSize64(zip, record + 4, 'end record size') + 12 !== locator - record)
    throw new UnsafeArchiveError('the ZIP64 end record does not end where its locator begins');
  return {
    diskNumber: zip.readUInt32LE(record + 16),
    centralDisk: zip.readUInt32LE(record + 20),
    entriesOnDisk: readSize64(zip, record + 24, 'entry count'),
    count: readSize64(zip, record + 32, 'entry count'),
    centralSize: readSize64(zip, record + 40, 'central directory size'),
    centralStart: readSize64(zip, record + 48, 'central directory offset'),
    directoryEnd: record,
  };
}

/**
 * The sizes and offset a central entry gives as 0xffffffff, from its ZIP64 extra field (id 1), which
 * holds exactly those, in this order. A missing or short field is refused, not guessed around.
 */
function zip64Values(
  extra: Buffer,
  wanted: { size: boolean; compressedSize: boolean; localOffset: boolean },
  rawName: string,
) {
  for (let offset = 0; offset + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(offset);
    const length = extra.readUInt16LE(offset + 2);
    const body = offset + 4;
    if (body + length > extra.length) break;
    if (id === 0x0001) {
      let at = body;
      const next = (what: string): number => {
        if (at + 8 > body + length) throw new UnsafeArchiveError(`the ZIP64 extra field has no ${what}`, rawName);
        const value = readSize64(extra, at, what, rawName);
        at += 8;
        return value;
      };
      return {
        size: wanted.size ? next('size') : undefined,
        compressedSize: wanted.compressedSize ? next('compressed size') : undefined,
        localOffset: wanted.localOffset ? next('local header offset') : undefined,
      };
    }
    offset = body + length;
  }
  throw new UnsafeArchiveError('the entry gives ZIP64 sizes but has no ZIP64 extra field', rawName);
}

function readCentralDirectory(zip: Buffer, budget: ArchiveBudget): { entries: CentralEntry[]; centralStart: number } {
  const end = findEndOfCentralDirectory(zip);
  const { diskNumber, centralDisk, entriesOnDisk, count, centralSize, centralStart, directoryEnd } =
    readDirectoryBounds(zip, end);
  if (diskNumber !== 0 || centralDisk !== 0 || entriesOnDisk !== count)
    throw new UnsafeArchiveError('multi-part (spanned) zips are not supported');
  if (count > budget.limits.maxEntries)
    throw new UnsafeArchiveError(
      `the archive holds ${count} entries, more than ${budget.limits.maxEntries} (maxEntries)`,
    );
  if (centralStart + centralSize !== directoryEnd)
    throw new UnsafeArchiveError('the central directory does not end where the end record says');

  const paths = new ArchivePathSet();
  const entries: CentralEntry[] = [];
  let offset = centralStart;
  for (let index = 0; index < count; index += 1) {
    if (offset + 46 > directoryEnd || zip.readUInt32LE(offset) !== centralHeaderSignature)
      throw new UnsafeArchiveError(`central directory entry #${index} is malformed`);
    const versionMadeBy = zip.readUInt16LE(offset + 4);
    const flags = zip.readUInt16LE(offset + 8);
    const method = zip.readUInt16LE(offset + 10);
    const crc = zip.readUInt32LE(offset + 16);
    let compressedSize = zip.readUInt32LE(offset + 20);
    let size = zip.readUInt32LE(offset + 24);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const externalAttributes = zip.readUInt32LE(offset + 38);
    let localOffset = zip.readUInt32LE(offset + 42);
    const next = offset + 46 + nameLength + extraLength + commentLength;
    if (next > directoryEnd) throw new UnsafeArchiveError(`central directory entry #${index} runs past the directory`);
    const nameBytes = zip.subarray(offset + 46, offset + 46 + nameLength);
    const rawName = decodeEntryName(nameBytes);
    offset = next;

    if (flags & 0x41) throw new UnsafeArchiveError('encrypted entries are not supported', rawName);
    const wanted = {
      size: size === 0xffffffff,
      compressedSize: compressedSize === 0xffffffff,
      localOffset: localOffset === 0xffffffff,
    };
    if (wanted.size || wanted.compressedSize || wanted.localOffset) {
      const extra = zip.subarray(offset - extraLength - commentLength, offset - commentLength);
      const values = zip64Values(extra, wanted, rawName);
      size = values.size ?? size;
      compressedSize = values.compressedSize ?? compressedSize;
      localOffset = values.localOffset ?? localOffset;
    }
    const { type, mode } = entryKind(rawName, versionMadeBy, externalAttributes);
    const path = cleanArchivePath(rawName);
    if (type === 'directory' && size !== 0) throw new UnsafeArchiveError('a folder entry holds data', rawName);
    if (path === undefined && type === 'file') throw new UnsafeArchiveError('a file entry has no name', rawName);
    if (method !== 0 && method !== 8)
      throw new UnsafeArchiveError(`compression method ${method} is not supported (only stored and deflate)`, rawName);
    if (method === 0 && compressedSize !== size)
      throw new UnsafeArchiveError(`a stored entry claims ${size} bytes but holds ${compressedSize}`, rawName);
    const { maxCompressionRatio, compressionRatioFloorBytes } = budget.limits;
    if (size > compressionRatioFloorBytes && size / Math.max(compressedSize, 1) > maxCompressionRatio) {
      throw new UnsafeArchiveError(
        `${compressedSize} compressed bytes claim to expand to ${size}, a ratio over ${maxCompressionRatio}:1 (maxCompressionRatio; a zip bomb?)`,
        rawName,
      );
    }
    if (path !== undefined) paths.add(path, type, rawName);
    budget.admit(rawName, size);
    entries.push({ rawName, nameBytes, path, type, mode, method, crc, compressedSize, size, localOffset });
  }
  if (offset !== directoryEnd)
    throw new UnsafeArchiveError('the central directory holds more than its entry count says');
  return { entries, centralStart };
}

/**
 * Where each entry's data lies, checked against its local header. Entries that share bytes are
 * refused: overlapping entries are how a small zip expands to terabytes without a high ratio in
 * any single entry.
 */
function locateData(zip: Buffer, entries: CentralEntry[], centralStart: number): Map<CentralEntry, Buffer> {
  const located = new Map<CentralEntry, Buffer>();
  const spans: { start: number; end: number; entry: CentralEntry }[] = [];
  for (const entry of entries) {
    const start = entry.localOffset;
    if (start + 30 > centralStart || zip.readUInt32LE(start) !== localHeaderSignature)
      throw new UnsafeArchiveError('the local header is missing or malformed', entry.rawName);
    const nameLength = zip.readUInt16LE(start + 26);
    const extraLength = zip.readUInt16LE(start + 28);
    const localName = zip.subarray(start + 30, start + 30 + nameLength);
    // Two names for one entry let two extractors see two different archives.
    if (!localName.equals(entry.nameBytes))
      throw new UnsafeArchiveError('the local header names a different path than the central directory', entry.rawName);
    const dataStart = start + 30 + nameLength + extraLength;
    const dataEnd = dataStart + entry.compressedSize;
    if (dataEnd > centralStart)
      throw new UnsafeArchiveError('the entry data runs into the central directory (truncated?)', entry.rawName);
    spans.push({ start, end: dataEnd, entry });
    located.set(entry, zip.subarray(dataStart, dataEnd));
  }
  spans.sort((left, right) => left.start - right.start);
  for (let index = 1; index < spans.length; index += 1) {
    const previous = spans[index - 1] as (typeof spans)[number];
    const current = spans[index] as (typeof spans)[number];
    if (current.start < previous.end)
      throw new UnsafeArchiveError(
        `its data overlaps entry ${JSON.stringify(previous.entry.rawName)} (a zip bomb?)`,
        current.entry.rawName,
      );
  }
  return located;
}

async function inflateEntry(entry: CentralEntry, compressed: Buffer): Promise<Buffer> {
  if (entry.method === 0) return Buffer.from(compressed);
  try {
    // One byte of headroom shows a stream that goes past its declared size without inflating all of it.
    return await inflate(compressed, { maxOutputLength: entry.size + 1 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
      throw new UnsafeArchiveError(
        `inflates to more than its declared ${entry.size} bytes (a zip bomb?)`,
        entry.rawName,
      );
    }
    throw new UnsafeArchiveError(`the deflate data is corrupt: ${(error as Error).message}`, entry.rawName);
  }
}

/**
 * Reads a whole zip through its central directory into checked entries. Every size, name and type
 * is checked before the first byte is inflated, and each inflated entry must match its declared
 * size and CRC-32.
 */
export async function readZipEntries(zip: Buffer, budget: ArchiveBudget): Promise<ArchiveEntry[]> {
  if (zip.length < 22) throw new UnsafeArchiveError('the file is too short to be a zip');
  const { entries, centralStart } = readCentralDirectory(zip, budget);
  const located = locateData(zip, entries, centralStart);
  const named = entries.filter((entry): entry is CentralEntry & { path: string } => entry.path !== undefined);
  return mapWithConcurrency(named, inflateConcurrency, async (entry): Promise<ArchiveEntry> => {
    if (entry.type === 'directory')
      return { path: entry.path, type: 'directory', mode: entry.mode, data: Buffer.alloc(0) };
    const data = await inflateEntry(entry, located.get(entry) as Buffer);
    if (data.length !== entry.size)
      throw new UnsafeArchiveError(`inflates to ${data.length} bytes, not the declared ${entry.size}`, entry.rawName);
    if (crc32(data) !== entry.crc)
      throw new UnsafeArchiveError('the CRC-32 does not match the data (corrupted?)', entry.rawName);
    return { path: entry.path, type: 'file', mode: entry.mode, data };
  });
}
