import {
  close as closeOnPool,
  closeSync,
  constants,
  fstatSync,
  open as openOnPool,
  openSync,
  read as readOnPool,
  readSync,
  type Stats,
  statSync,
} from 'node:fs';

/** What reading one SKILL.md found. */
export type SkillFileRead =
  /** Gone, or not a regular file (any more). */
  | { kind: 'missing' }
  /** `bytes` is undefined when the signature matched the cached one (the cached parse is still good) or the file is over the limit. */
  | { kind: 'file'; signature: string; size: number; bytes: Buffer | undefined }
  | { kind: 'error'; signature: string | undefined; code: string };

/** Files read between two turns of the event loop: about a millisecond of blocking on a warm cache. */
const filesPerTurn = 32;

/**
 * Bytes of the blocks SKILL.md files are read into, one after another. Every file read on its own
 * `Buffer.allocUnsafe` (most SKILL.md files are larger than Node's 4 KiB pool share) cost an
 * ArrayBuffer allocation each, a tenth of a cold listing; a block is shared by the files it holds
 * (each parse keeps its bytes for the body it reads later) and freed with the last of them.
 */
const blockBytes = 256 * 1024;

/**
 * What tells a file's versions apart without reading it: size, modification and status-change
 * times, inode. The ctime cannot be set back, so a same-size rewrite whose mtime was restored still
 * shows; number stats hold the times to a fraction of a microsecond, finer than the filesystem's
 * clock, so a bigint stat would add nothing but its cost.
 */
function signatureOf(stats: Stats): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}`;
}

/**
 * Below this many files to read, the synchronous path: a handful of reads is over before the
 * thread pool's hand-offs (two per file) would pay for themselves, and a repository of a few skills
 * is the common case. Measured on the corpus (636 files), see docs/benchmarks.md.
 */
const pipelineThreshold = 32;

/**
 * Reads in flight at once on libuv's thread pool (four threads by default). Enough to keep the pool
 * busy while the main thread parses; more only queues inside libuv and holds more descriptors open.
 */
const readsInFlight = 16;

/**
 * Reads many small files (the SKILL.md of every skill) and hands each read to `consume` with its
 * position in `files`, in no particular order; the caller keeps results by position, so what it
 * builds from them does not depend on the order reads finish in. A file whose `cachedSignature` is
 * known is first looked at with one synchronous `stat`: when it matches, nothing more is done.
 *
 * Many files are read on the thread pool while the main thread parses the ones already read: the
 * open and read syscalls were about a third of a cold listing, the same work as the floor's reads,
 * and done one after another on the main thread they added to the parsing instead of overlapping it
 * (the machines this runs on have more than one core). Callbacks, not promises: a promise per step
 * cost more than the step on files of a few kilobytes. Each file is opened on the pool, its `fstat`
 * taken on the main thread (one cheap syscall, not worth a hand-off), read on the pool, and closed
 * without waiting. Few files are read synchronously, in groups of `filesPerTurn` with a turn of the
 * event loop between groups (a group blocks for about a millisecond on a warm cache). Either way the
 * file is opened non-blocking, so a FIFO named SKILL.md cannot hang the read; its stat then says it
 * is not a file.
 */
export async function readSkillFiles(
  files: readonly string[],
  maxBytes: number,
  cachedSignature: (file: string) => string | undefined,
  consume: (position: number, read: SkillFileRead) => void,
): Promise<void> {
  const block = { buffer: Buffer.allocUnsafe(0), used: 0 };
  const toRead: number[] = [];
  for (let start = 0; start < files.length; start += filesPerTurn) {
    if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const end = Math.min(files.length, start + filesPerTurn);
    for (let position = start; position < end; position += 1) {
      const file = files[position]!;
      const cached = cachedSignature(file);
      const known = cached === undefined ? undefined : unchanged(file, cached);
      if (known !== undefined) consume(position, known);
      else toRead.push(position);
    }
  }
  if (toRead.length < pipelineThreshold) {
    for (let start = 0; start < toRead.length; start += filesPerTurn) {
      if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const end = Math.min(toRead.length, start + filesPerTurn);
      for (let next = start; next < end; next += 1) {
        const position = toRead[next]!;
        consume(position, readOne(files[position]!, maxBytes, block));
      }
    }
    return;
  }
  await new Promise<void>((resolve, reject) => {
    let issued = 0;
    let finished = 0;
    const issueNext = (): void => {
      if (issued === toRead.length) return;
      const position = toRead[issued]!;
      issued += 1;
      readOneOnPool(files[position]!, maxBytes, block, (result) => {
        finished += 1;
        try {
          consume(position, result);
        } catch (error) {
          reject(error);
          return;
        }
        if (finished === toRead.length) resolve();
        else issueNext();
      });
    };
    for (let started = 0; started < readsInFlight; started += 1) issueNext();
  });
}

/** The read of a file whose signature is still `cached` (bytes not needed), else undefined. */
function unchanged(file: string, cached: string): SkillFileRead | undefined {
  let stats: Stats | undefined;
  try {
    stats = statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (stats === undefined) return { kind: 'missing' };
  if (!stats.isFile()) return undefined;
  const signature = signatureOf(stats);
  return signature === cached ? { kind: 'file', signature, size: stats.size, bytes: undefined } : undefined;
}

function readOne(file: string, maxBytes: number, block: { buffer: Buffer; used: number }): SkillFileRead {
  let descriptor: number;
  try {
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return openFailure(error as NodeJS.ErrnoException);
  }
  let signature: string | undefined;
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) return { kind: 'missing' };
    signature = signatureOf(stats);
    const size = stats.size;
    if (size > maxBytes) return { kind: 'file', signature, size, bytes: undefined };
    const bytes = bufferFor(size, block);
    let filled = 0;
    while (filled < size) {
      const read = readSync(descriptor, bytes, filled, size - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return { kind: 'file', signature, size, bytes: filled === size ? bytes : bytes.subarray(0, filled) };
  } catch (error) {
    return { kind: 'error', signature, code: (error as NodeJS.ErrnoException).code ?? 'EIO' };
  } finally {
    closeSync(descriptor);
  }
}

/** Where a file of `size` bytes is read to: a share of the current block, or its own buffer when large. */
function bufferFor(size: number, block: { buffer: Buffer; used: number }): Buffer {
  if (size > blockBytes / 4) return Buffer.allocUnsafe(size);
  if (block.used + size > block.buffer.length) {
    block.buffer = Buffer.allocUnsafe(blockBytes);
    block.used = 0;
  }
  const bytes = block.buffer.subarray(block.used, block.used + size);
  block.used += size;
  return bytes;
}

function openFailure(error: NodeJS.ErrnoException): SkillFileRead {
  const code = error.code ?? 'EIO';
  return code === 'ENOENT' || code === 'ENOTDIR' ? { kind: 'missing' } : { kind: 'error', signature: undefined, code };
}

const ignoreCloseError = (): void => {};

/** readOne on the thread pool: the same outcomes, delivered to `done` once. */
function readOneOnPool(
  file: string,
  maxBytes: number,
  block: { buffer: Buffer; used: number },
  done: (read: SkillFileRead) => void,
): void {
  openOnPool(file, constants.O_RDONLY | constants.O_NONBLOCK, (openError, descriptor) => {
    if (openError) {
      done(openFailure(openError));
      return;
    }
    const finish = (result: SkillFileRead): void => {
      closeOnPool(descriptor, ignoreCloseError);
      done(result);
    };
    let signature: string | undefined;
    let size: number;
    try {
      const stats = fstatSync(descriptor);
      if (!stats.isFile()) {
        finish({ kind: 'missing' });
        return;
      }
      signature = signatureOf(stats);
      size = stats.size;
    } catch (error) {
      finish({ kind: 'error', signature, code: (error as NodeJS.ErrnoException).code ?? 'EIO' });
      return;
    }
    if (size > maxBytes) {
      finish({ kind: 'file', signature, size, bytes: undefined });
      return;
    }
    const known = signature;
    const bytes = bufferFor(size, block);
    const readFrom = (filled: number): void => {
      if (filled === size) {
        finish({ kind: 'file', signature: known, size, bytes });
        return;
      }
      readOnPool(descriptor, bytes, filled, size - filled, filled, (readError, count) => {
        if (readError) finish({ kind: 'error', signature: known, code: readError.code ?? 'EIO' });
        else if (count === 0) finish({ kind: 'file', signature: known, size, bytes: bytes.subarray(0, filled) });
        else readFrom(filled + count);
      });
    };
    readFrom(0);
  });
}
