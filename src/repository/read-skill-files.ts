import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** What reading one SKILL.md found. */
export type SkillFileRead =
  /** Gone, or not a regular file (any more). */
  | { kind: 'missing' }
  /** `bytes` is undefined when `wanted` declined the read (the cached parse is still good) or the file is over the limit. */
  | { kind: 'file'; signature: string; size: bigint; bytes: Buffer | undefined }
  | { kind: 'error'; signature: string | undefined; code: string };

/** Files read between two turns of the event loop: about a millisecond of blocking on a warm cache. */
const filesPerTurn = 32;

/**
 * Reads many small files (the SKILL.md of every skill), `wanted` deciding after the stat whether a
 * file's bytes are needed. The reads are synchronous, in groups of `filesPerTurn` with a turn of the
 * event loop between groups. Why not the promise API: each file then takes four or five round
 * trips through libuv's thread pool (stat, open, fstat, read, close), and with SKILL.md files of a
 * few kilobytes those hand-offs, not the disk, were most of a cold listing (2.5-3.7 times a bare
 * walk that reads every file). A group blocks the loop for about a millisecond, which keeps other
 * work responsive. The file is opened non-blocking, so a FIFO named SKILL.md cannot hang the read;
 * its stat then says it is not a file.
 */
export async function readSkillFiles(
  files: readonly string[],
  maxBytes: number,
  wanted: (file: string, signature: string) => boolean,
): Promise<SkillFileRead[]> {
  const results: SkillFileRead[] = new Array(files.length);
  for (let start = 0; start < files.length; start += filesPerTurn) {
    if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const end = Math.min(files.length, start + filesPerTurn);
    for (let index = start; index < end; index += 1) results[index] = readOne(files[index]!, maxBytes, wanted);
  }
  return results;
}

function readOne(file: string, maxBytes: number, wanted: (file: string, signature: string) => boolean): SkillFileRead {
  let descriptor: number;
  try {
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
    return code === 'ENOENT' || code === 'ENOTDIR'
      ? { kind: 'missing' }
      : { kind: 'error', signature: undefined, code };
  }
  let signature: string | undefined;
  try {
    const stats = fstatSync(descriptor, { bigint: true });
    if (!stats.isFile()) return { kind: 'missing' };
    signature = `${stats.size}:${stats.mtimeNs}:${stats.ino}`;
    if (stats.size > BigInt(maxBytes) || !wanted(file, signature))
      return { kind: 'file', signature, size: stats.size, bytes: undefined };
    const size = Number(stats.size);
    const bytes = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const read = readSync(descriptor, bytes, filled, size - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return { kind: 'file', signature, size: stats.size, bytes: filled === size ? bytes : bytes.subarray(0, filled) };
  } catch (error) {
    return { kind: 'error', signature, code: (error as NodeJS.ErrnoException).code ?? 'EIO' };
  } finally {
    closeSync(descriptor);
  }
}
