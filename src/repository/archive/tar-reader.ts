import type { ArchiveEntry } from './archive-entry.js';
import type { ArchiveBudget } from './archive-limits.js';
import { ArchivePathSet, cleanArchivePath } from './archive-path.js';
import { decodeEntryName } from './decode-entry-name.js';
import { UnsafeArchiveError } from './errors.js';
import {
  tarBlockSize as blockSize,
  checksumMatches,
  field,
  isZeroBlock,
  maxMetadataBytes,
  type PendingNames,
  parseNumber,
  parsePaxRecords,
} from './tar-header.js';

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
    const entryName = pending.path ?? (prefix === '' ? headerName : `${prefix}/${headerName}`);
    // The placeholder only labels errors; the entry itself keeps its empty name and is judged by it.
    const rawName = entryName || '(empty name)';
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
    if (type === '1' || type === '2')
      throw new UnsafeArchiveError(`${type === '1' ? 'hard' : 'symbolic'} links are not allowed`, rawName);
    if (type === '3' || type === '4' || type === '6')
      throw new UnsafeArchiveError('devices and FIFOs are not allowed', rawName);
    const isDirectory = type === '5';
    if (!isDirectory && type !== '0' && type !== '\0' && type !== '7') {
      throw new UnsafeArchiveError(`tar entry type ${JSON.stringify(type)} is not supported`, rawName);
    }
    const path = cleanArchivePath(entryName);
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
