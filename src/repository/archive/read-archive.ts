import { promisify } from 'node:util';
import { gunzip as gunzipCallback } from 'node:zlib';
import type { ArchiveEntry, ArchiveFormat } from './archive-entry.js';
import { ArchiveBudget, type ArchiveLimits, archiveLimits } from './archive-limits.js';
import { UnsafeArchiveError } from './errors.js';
import { readTarEntries } from './tar-reader.js';
import { readZipEntries } from './zip-reader.js';

const gunzip = promisify(gunzipCallback);

/** Room for tar headers, pax records and padding around the files' own bytes. */
function tarOverheadBytes(limits: ArchiveLimits): number {
  return limits.maxEntries * 3 * 512 + 20 * 512;
}

async function gunzipTar(bytes: Buffer, limits: ArchiveLimits): Promise<Buffer> {
  const maxOutputLength = limits.maxTotalBytes + tarOverheadBytes(limits);
  try {
    return await gunzip(bytes, { maxOutputLength });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
      throw new UnsafeArchiveError(
        `the gzip stream expands past ${maxOutputLength} bytes, more than maxTotalBytes allows (a gzip bomb?)`,
      );
    }
    throw new UnsafeArchiveError(`the gzip stream is corrupt: ${(error as Error).message}`);
  }
}

/**
 * Reads and checks a whole archive in memory and returns its entries, or throws UnsafeArchiveError
 * naming an entry that breaks a rule (names, types and sizes are checked in archive order; zip
 * entries are then inflated several at a time). Nothing touches the disk, so a caller writes only
 * archives that passed every check.
 */
export async function readArchive(
  bytes: Uint8Array,
  format: ArchiveFormat,
  limits: Partial<ArchiveLimits> = {},
): Promise<ArchiveEntry[]> {
  const checked = archiveLimits(limits);
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const budget = new ArchiveBudget(checked);
  if (format === 'zip') return readZipEntries(buffer, budget);
  if (format === 'tar') return readTarEntries(buffer, budget);
  if (format === 'tar.gz') return readTarEntries(await gunzipTar(buffer, checked), budget);
  throw new UnsafeArchiveError(`unknown archive format ${JSON.stringify(format)}`);
}
