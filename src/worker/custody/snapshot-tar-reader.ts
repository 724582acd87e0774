import { createHash, type Hash } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readdir, rm, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ArchiveBudget, type ArchiveLimits, archiveLimits } from '../../repository/archive/archive-limits.js';
import { ArchivePathSet } from '../../repository/archive/archive-path.js';
import { decodeEntryName } from '../../repository/archive/decode-entry-name.js';
import { UnsafeArchiveError } from '../../repository/archive/errors.js';
import {
  checksumMatches,
  field,
  isZeroBlock,
  maxMetadataBytes,
  type PendingNames,
  parseNumber,
  parsePaxRecords,
  tarBlockSize,
} from '../../repository/archive/tar-header.js';
import { linkTargetProblem } from './snapshot-links.js';

/** Limits a restore holds a snapshot to; the defaults suit a workspace, not a skills archive. */
export type SnapshotRestoreLimits = Pick<ArchiveLimits, 'maxEntries' | 'maxEntryBytes' | 'maxTotalBytes'>;

const gibibyte = 1024 * 1024 * 1024;

/** What a restore accepts when the caller sets no limits: entries, bytes per file, bytes in all. */
export const defaultSnapshotRestoreLimits: Readonly<SnapshotRestoreLimits> = Object.freeze({
  maxEntries: 200_000,
  maxEntryBytes: 4 * gibibyte,
  maxTotalBytes: 8 * gibibyte,
});

/** Bytes a tar may carry after its end-of-archive blocks (tar pads to 10 KiB records; some writers more). */
const maxTrailingBytes = 1024 * 1024;

/** Pulls exact byte counts out of a stream of chunks, hashing every byte it hands out. */
class ChunkReader {
  readonly #chunks: AsyncIterator<Uint8Array>;
  readonly #hash: Hash = createHash('sha256');
  #buffered: Buffer = Buffer.alloc(0);
  #ended = false;
  consumed = 0;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.#chunks = source[Symbol.asyncIterator]();
  }

  async #fill(): Promise<boolean> {
    if (this.#ended) return false;
    const next = await this.#chunks.next();
    if (next.done) {
      this.#ended = true;
      return false;
    }
    // A view, not a copy: a chunk is only read, and a 50 MB restore would copy every byte otherwise.
    const chunk = Buffer.isBuffer(next.value)
      ? next.value
      : Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    this.#buffered = this.#buffered.length === 0 ? chunk : Buffer.concat([this.#buffered, chunk]);
    return true;
  }

  #take(length: number): Buffer {
    const taken = this.#buffered.subarray(0, length);
    this.#buffered = this.#buffered.subarray(length);
    this.#hash.update(taken);
    this.consumed += taken.length;
    return taken;
  }

  /** Exactly `length` bytes, or undefined when the stream ends first. */
  async exactly(length: number): Promise<Buffer | undefined> {
    while (this.#buffered.length < length) if (!(await this.#fill())) return undefined;
    return Buffer.from(this.#take(length));
  }

  /** `length` bytes as they arrive, without holding them all; throws through `onShort` when the stream ends first. */
  async *stream(length: number, onShort: () => Error): AsyncGenerator<Buffer> {
    let remaining = length;
    while (remaining > 0) {
      if (this.#buffered.length === 0 && !(await this.#fill())) throw onShort();
      const taken = this.#take(Math.min(remaining, this.#buffered.length));
      remaining -= taken.length;
      yield taken;
    }
  }

  /** Reads the rest, up to `limit` bytes; true when the stream ended within it. */
  async drain(limit: number): Promise<boolean> {
    for (;;) {
      if (this.#buffered.length > 0) this.#take(this.#buffered.length);
      if (this.consumed > limit) return false;
      if (!(await this.#fill())) return true;
    }
  }

  /** Ends the source early (a refused snapshot): a database stream gives its connection back. */
  async close(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    await this.#chunks.return?.();
  }

  digest(): string {
    return this.#hash.digest('hex');
  }
}

/**
 * A snapshot entry name in canonical form, or undefined for the top folder (`./`). Only what could
 * land outside the folder is refused, and refused rather than repaired: an absolute name, `..`, a
 * NUL. A workspace may hold names a skills archive may not (a colon, a backslash), so the hub's
 * stricter rule (cleanArchivePath) would make some workspaces impossible to restore.
 */
function cleanSnapshotPath(raw: string): string | undefined {
  if (raw.includes('\0')) throw new UnsafeArchiveError('the path holds a NUL character', raw);
  if (raw.startsWith('/')) throw new UnsafeArchiveError('absolute paths are not allowed', raw);
  const segments = raw.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) throw new UnsafeArchiveError('".." is not allowed in a snapshot path', raw);
  return segments.length === 0 ? undefined : segments.join('/');
}

/** Options of `restoreWorkspaceSnapshot`: the digest the bytes must hash to, and the limits. */
export interface RestoreSnapshotOptions {
  /** The SHA-256 (hex) the snapshot is named by; a stream hashing to anything else is refused and undone. */
  digest?: string;
  limits?: Partial<SnapshotRestoreLimits>;
}

function checkedLimits(overrides: Partial<SnapshotRestoreLimits> = {}): ArchiveLimits {
  return archiveLimits({ ...defaultSnapshotRestoreLimits, ...overrides });
}

async function writeFileEntry(target: string, mode: number, bytes: AsyncIterable<Buffer>): Promise<void> {
  await mkdir(dirname(target), { recursive: true, mode: 0o755 });
  // Exclusive and not following links: no earlier entry can have left something here to write through.
  const handle = await open(
    target,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    mode,
  );
  try {
    for await (const chunk of bytes) await handle.write(chunk);
    await handle.chmod(mode);
  } finally {
    await handle.close();
  }
}

/** A write the file system refused (a name too long, a disk full), as a refusal naming the entry. */
async function onDisk<Result>(entry: string, write: () => Promise<Result>): Promise<Result> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof UnsafeArchiveError) throw error;
    throw new UnsafeArchiveError(`cannot be written: ${(error as Error).message}`, entry);
  }
}

/** Everything in `folder`, removed: a refused restore leaves the folder as empty as it was given. */
async function emptyFolder(folder: string): Promise<void> {
  for (const name of await readdir(folder)) await rm(join(folder, name), { recursive: true, force: true });
}

/**
 * Restores a snapshot streamed from `source` into `folder`, which must exist and be empty. Each
 * entry is checked before anything of it is written (a clean relative name, no duplicate, no entry
 * below a file or a link, regular files, folders and symbolic links only, sizes and the entry count
 * within `limits`) with the checks the hub's archive reader uses (src/repository/archive/). File
 * bytes go to disk as they arrive, never the whole tar in memory. Symbolic links are made last,
 * as they were, wherever they point (snapshot-links.ts): with no entry below a link and no file
 * after one, nothing is ever written through a link. When any entry is refused, the stream ends early, or the bytes do not
 * hash to `digest`, everything written is removed and an UnsafeArchiveError names the entry.
 */
export async function restoreWorkspaceSnapshot(
  source: AsyncIterable<Uint8Array>,
  folder: string,
  options: RestoreSnapshotOptions = {},
): Promise<void> {
  const limits = checkedLimits(options.limits);
  const existing = await readdir(folder);
  if (existing.length > 0)
    throw new UnsafeArchiveError(
      `the folder ${JSON.stringify(folder)} is not empty (it holds ${JSON.stringify(existing[0])})`,
    );
  const reader = new ChunkReader(source);
  try {
    await extractEntries(reader, folder, new ArchiveBudget(limits));
    if (!(await reader.drain(reader.consumed + maxTrailingBytes)))
      throw new UnsafeArchiveError(`more than ${maxTrailingBytes} bytes follow the end of the tar`);
    const digest = reader.digest();
    if (options.digest !== undefined && digest !== options.digest)
      throw new UnsafeArchiveError(
        `the snapshot's bytes hash to ${digest}, not to ${options.digest}, the name it was stored under`,
      );
  } catch (error) {
    await reader.close().catch(() => undefined);
    await emptyFolder(folder);
    throw error;
  }
}

// One loop over the tar's headers with the entry kinds side by side, as tar-reader.ts reads them;
// split up, the pending pax names would have to travel between the pieces.
async function extractEntries(reader: ChunkReader, folder: string, budget: ArchiveBudget): Promise<void> {
  const paths = new ArchivePathSet();
  const links = new Map<string, string>();
  let pending: PendingNames = {};
  for (;;) {
    const offset = reader.consumed;
    const block = await reader.exactly(tarBlockSize);
    if (block === undefined) throw new UnsafeArchiveError('the tar ends without its end-of-archive block (truncated?)');
    if (isZeroBlock(block)) break;
    const headerName = decodeEntryName(field(block, 0, 100));
    const magic = block.subarray(257, 263).toString('latin1');
    const prefix = magic.startsWith('ustar') ? decodeEntryName(field(block, 345, 155)) : '';
    const entryName = pending.path ?? (prefix === '' ? headerName : `${prefix}/${headerName}`);
    // The placeholder only labels errors; the entry itself keeps its empty name and is judged by it.
    const rawName = entryName || '(empty name)';
    if (!checksumMatches(block, parseNumber(block, 148, 8, 'checksum', rawName)))
      throw new UnsafeArchiveError(
        `the header at byte ${offset} fails its checksum (not a tar, or corrupted)`,
        rawName,
      );
    const size = pending.size ?? parseNumber(block, 124, 12, 'size', rawName);
    const type = String.fromCharCode(block[156] as number);
    const short = () =>
      new UnsafeArchiveError(`the entry claims ${size} bytes but the tar ends first (truncated?)`, rawName);
    const padded = Math.ceil(size / tarBlockSize) * tarBlockSize;

    if (type === 'x' || type === 'g' || type === 'L' || type === 'K') {
      if (size > maxMetadataBytes)
        throw new UnsafeArchiveError(`a ${size}-byte metadata record is larger than any real one`, rawName);
      const data = await reader.exactly(padded);
      if (data === undefined) throw short();
      const record = data.subarray(0, size);
      if (type === 'x') pending = { ...pending, ...parsePaxRecords(record, rawName) };
      if (type === 'L') pending = { ...pending, path: decodeEntryName(field(record, 0, record.length)) };
      if (type === 'K') pending = { ...pending, linkpath: decodeEntryName(field(record, 0, record.length)) };
      continue;
    }
    const linkTarget = pending.linkpath ?? decodeEntryName(field(block, 157, 100));
    pending = {};
    if (type === '1') throw new UnsafeArchiveError('hard links are not allowed', rawName);
    if (type === '3' || type === '4' || type === '6')
      throw new UnsafeArchiveError('devices and FIFOs are not allowed', rawName);
    const kind =
      type === '5'
        ? 'directory'
        : type === '2'
          ? 'symlink'
          : type === '0' || type === '\0' || type === '7'
            ? 'file'
            : undefined;
    if (kind === undefined)
      throw new UnsafeArchiveError(`tar entry type ${JSON.stringify(type)} is not supported`, rawName);
    const path = cleanSnapshotPath(entryName);
    if (path === undefined) {
      if (kind !== 'directory') throw new UnsafeArchiveError('an entry other than a folder has no name', rawName);
      continue;
    }
    // A link counts as a file here, so no later entry can be placed below it.
    paths.add(path, kind === 'directory' ? 'directory' : 'file', rawName);
    budget.admit(rawName, kind === 'file' ? size : 0);
    const mode = parseNumber(block, 100, 8, 'mode', rawName) & 0o777;
    if (kind === 'directory') {
      if (size !== 0) throw new UnsafeArchiveError('a folder entry carries bytes', rawName);
      await onDisk(rawName, () => mkdir(join(folder, path), { recursive: true, mode: mode | 0o700 }));
    } else if (kind === 'symlink') {
      if (size !== 0) throw new UnsafeArchiveError('a link entry carries bytes', rawName);
      links.set(path, linkTarget);
    } else {
      await onDisk(rawName, () => writeFileEntry(join(folder, path), mode | 0o600, reader.stream(size, short)));
      const rest = await reader.exactly(padded - size);
      if (rest === undefined) throw short();
    }
  }
  for (const [path, target] of links) {
    const problem = linkTargetProblem(target);
    if (problem !== undefined) throw new UnsafeArchiveError(problem, path);
  }
  for (const [path, target] of links) {
    await onDisk(path, async () => {
      await mkdir(dirname(join(folder, path)), { recursive: true, mode: 0o755 });
      await symlink(target, join(folder, path));
    });
  }
}
