import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { openedFilePath } from './opened-file-path.js';

/** A SKILL.md to read, as the scan found it. */
export interface SkillFileToRead {
  /** The path as found (links kept as named). */
  path: string;
  /**
   * Set for a SKILL.md that was a link at the scan: whether the real path it leads to now may be
   * read (the scan's rule: inside the repository's roots). Unset, the file was a regular file and
   * is read without following a link at its last step, so one swapped for a link is refused.
   */
  linkTargetAllowed?: (realPath: string) => boolean;
  /**
   * The real path of the folder holding it, as the scan found it. A re-read (a file whose cached
   * signature changed, or a read with `confirm`) first checks the folder still resolves there: a
   * folder on the path swapped for a link since then would lead the read elsewhere.
   */
  realFolder: string;
}

/** A read that found no content: the file is gone (or not a regular file any more), or could not be read. */
type UnreadSkillFile =
  | { kind: 'missing' }
  /**
   * `code` is a system error code or one of the reader's own: `LINK_LEADS_OUT` (a link leading
   * out of the roots, `detail` its real path), `FOLDER_MOVED` (the folder resolves elsewhere than
   * at the scan, `detail` where), `CHANGED_WHILE_READ` (with `confirm`: the file's signature after
   * the read was not the one before it, or a second read differed), `SETTLING` (with `confirm`: the
   * file changed too recently to be sure no write is still in progress; `detail` is how many ms
   * to wait before reading it again).
   */
  | { kind: 'error'; signature: string | undefined; code: string; detail?: string };

/** What reading one SKILL.md found; `value` is what the caller's `consume` made of its bytes. */
export type SkillFileRead<Value> =
  | UnreadSkillFile
  /** `value` is undefined when the signature matched the cached one (the cached parse is still good) or the file is over the limit. */
  | { kind: 'file'; signature: string; size: number; value: Value | undefined };

/** A read before its bytes are consumed: `bytes` is a view of the scratch buffer. */
type RawRead = UnreadSkillFile | { kind: 'file'; signature: string; size: number; bytes: Buffer | undefined };

/** Files read between two turns of the event loop: about a millisecond of blocking on a warm cache. */
const filesPerTurn = 32;

/** The buffers a run of reads reuses: every file is read into `buffer`, a confirming second read into `again`. */
interface ScratchBuffers {
  buffer: Buffer;
  again?: Buffer;
}

/** The scratch buffer's first size: most SKILL.md files fit, and only the pages a read touches are faulted in. */
const initialScratchBytes = 64 * 1024;

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
 * Reads many small files (the SKILL.md of every skill) and hands each file's bytes to `consume`
 * while they are valid: every file is read into one scratch buffer, so `consume` must copy what
 * it keeps (decoding to a string copies). Why one buffer: memory a process touches for the first
 * time costs a page fault per 4 KiB, and reading every file into memory of its own made those
 * faults half of a cold listing's reads; the listing keeps only
 * what it parsed, and the body of a skill is read again when the skill is loaded.
 *
 * A file whose `cachedSignature` is known is first looked at with one `stat`: when it matches,
 * nothing more is done. The reads are synchronous, in groups of `filesPerTurn` with a turn of the
 * event loop between groups. Why not the promise API: each file then takes four or five round
 * trips through libuv's thread pool (stat, open, fstat, read, close), and with SKILL.md files of a
 * few kilobytes those hand-offs, not the disk, were most of a cold listing. A group blocks the loop
 * briefly, which keeps other work responsive. Nor callbacks with reads in flight on the pool while
 * the main thread parses the files already read: the callback delivering each read cost the main
 * thread as much as the synchronous syscalls it replaced, so the main thread, which bounds the wall
 * time, did no less work, and the process did more (docs/decisions/fast-at-any-size-measurements.md,
 * "Reads on the thread pool"). The file is opened non-blocking, so a FIFO named SKILL.md cannot hang the read (its stat then says
 * it is not a file). One the scan found as a file is opened without following a link at the last
 * step (one that has become a link gives ELOOP); one it found as a link is followed only to a real
 * path `linkTargetAllowed` accepts.
 */
export async function readSkillFiles<Value>(
  files: readonly SkillFileToRead[],
  maxBytes: number,
  cachedSignature: (index: number) => string | undefined,
  consume: (bytes: Buffer, signature: string, index: number) => Value,
  options: { confirm?: boolean } = {},
): Promise<SkillFileRead<Value>[]> {
  const results: SkillFileRead<Value>[] = new Array(files.length);
  const scratch: ScratchBuffers = { buffer: Buffer.allocUnsafe(0) };
  for (let start = 0; start < files.length; start += filesPerTurn) {
    if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const end = Math.min(files.length, start + filesPerTurn);
    for (let index = start; index < end; index += 1) {
      const file = files[index]!;
      const cached = cachedSignature(index);
      const read =
        (cached === undefined ? undefined : unchanged(file, cached)) ??
        readOne(file, maxBytes, scratch, options.confirm === true, cached !== undefined || options.confirm === true);
      results[index] =
        read.kind !== 'file'
          ? read
          : {
              kind: 'file',
              signature: read.signature,
              size: read.size,
              value: read.bytes === undefined ? undefined : consume(read.bytes, read.signature, index),
            };
    }
  }
  return results;
}

/** The read of a file whose signature is still `cached` (bytes not needed), else undefined. */
function unchanged(file: SkillFileToRead, cached: string): RawRead | undefined {
  let stats: Stats | undefined;
  try {
    // A link is followed here only to compare; reading it checks where it leads.
    stats =
      file.linkTargetAllowed === undefined
        ? lstatSync(file.path, { throwIfNoEntry: false })
        : statSync(file.path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (stats === undefined) return { kind: 'missing' };
  if (!stats.isFile()) return undefined;
  const signature = signatureOf(stats);
  return signature === cached ? { kind: 'file', signature, size: stats.size, bytes: undefined } : undefined;
}

function readOne(
  file: SkillFileToRead,
  maxBytes: number,
  scratch: ScratchBuffers,
  confirm: boolean,
  checkFolder: boolean,
): RawRead {
  // The first read follows the scan closely and skips this check (a realpath per file would cost
  // a cold listing a quarter of its time); see docs/security.md for the window that leaves.
  if (checkFolder) {
    let folder: string;
    try {
      folder = realpathSync.native(dirname(file.path));
    } catch (error) {
      return failedOpen(error);
    }
    if (folder !== file.realFolder)
      return { kind: 'error', signature: undefined, code: 'FOLDER_MOVED', detail: folder };
  }
  let path = file.path;
  if (file.linkTargetAllowed !== undefined) {
    try {
      path = realpathSync.native(file.path);
    } catch (error) {
      return failedOpen(error);
    }
    if (!file.linkTargetAllowed(path))
      return { kind: 'error', signature: undefined, code: 'LINK_LEADS_OUT', detail: path };
  }
  let descriptor: number;
  try {
    descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    return failedOpen(error);
  }
  let signature: string | undefined;
  try {
    // The check above resolved the folder, the open resolved the path again: a folder on it
    // swapped for a link in between would have led the open elsewhere (a host file read as the
    // skill, test/security/repository-skill-file-swap.test.ts). So what was opened must be the
    // file checked: its descriptor's path, one readlink under /proc.
    const opened = checkFolder ? openedFilePath(descriptor) : undefined;
    if (opened !== undefined) {
      const expected = file.linkTargetAllowed === undefined ? join(file.realFolder, basename(file.path)) : path;
      if (opened !== expected)
        return { kind: 'error', signature: undefined, code: 'FOLDER_MOVED', detail: dirname(opened) };
    }
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) return { kind: 'missing' };
    signature = signatureOf(stats);
    const size = stats.size;
    if (size > maxBytes) return { kind: 'file', signature, size, bytes: undefined };
    if (scratch.buffer.length < size)
      scratch.buffer = Buffer.allocUnsafe(Math.max(size, 2 * scratch.buffer.length, initialScratchBytes));
    const bytes = scratch.buffer.subarray(0, size);
    let filled = 0;
    while (filled < size) {
      const read = readSync(descriptor, bytes, filled, size - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    // The signature is taken before the read, so a write during it shows at the next look; a
    // caller that hands the bytes out as that version (get()'s body) asks for a second look.
    if (confirm && (filled !== size || signatureOf(fstatSync(descriptor)) !== signature))
      return { kind: 'error', signature, code: 'CHANGED_WHILE_READ' };
    // And for a second read of the same bytes: a rewrite in place stamps the file's times when it
    // starts, once per tick of the kernel's coarse clock (a few ms), so a read that overlaps the
    // rest of that write sees the same signature before and after, and half of each version.
    if (confirm && !readAgainEqual(descriptor, bytes.subarray(0, filled), scratch))
      return { kind: 'error', signature, code: 'CHANGED_WHILE_READ' };
    // Two equal reads do not prove a write is over: a writer descheduled in the middle of one
    // call (a loaded machine, test/security/repository-torn-read.test.ts) leaves the file half
    // written for as long as it waits, and both reads see the same half. The file's times are
    // set when a write starts, so a file changed less than `settleMs` ago is read again once it
    // is older (get() waits for that): only a writer stalled for longer tears a body.
    const settling = confirm ? settlingMs(stats.ctimeMs) : 0;
    if (settling > 0) return { kind: 'error', signature, code: 'SETTLING', detail: String(settling) };
    return { kind: 'file', signature, size, bytes: filled === size ? bytes : bytes.subarray(0, filled) };
  } catch (error) {
    return { kind: 'error', signature, code: (error as NodeJS.ErrnoException).code ?? 'EIO' };
  } finally {
    closeSync(descriptor);
  }
}

/** How long after a change a file read with `confirm` is taken as settled. */
const settleMs = 50;

/**
 * How many ms a file whose status changed at `changedMs` (ctime: set by every write, not settable
 * by utimes) has left before it is `settleMs` old; 0 once it is. A time ahead of the clock (the
 * clock set back, a network filesystem's skew) counts as settled: it would otherwise keep the
 * file from loading.
 */
function settlingMs(changedMs: number): number {
  const age = Date.now() - changedMs;
  return age >= 0 && age < settleMs ? Math.ceil(settleMs - age) : 0;
}

/** Whether reading the file again from the start gives `bytes` (and nothing after them). */
function readAgainEqual(descriptor: number, bytes: Buffer, scratch: ScratchBuffers): boolean {
  if (scratch.again === undefined || scratch.again.length < bytes.length + 1)
    scratch.again = Buffer.allocUnsafe(Math.max(bytes.length + 1, initialScratchBytes));
  const again = scratch.again.subarray(0, bytes.length + 1);
  let filled = 0;
  while (filled < again.length) {
    const read = readSync(descriptor, again, filled, again.length - filled, filled);
    if (read === 0) break;
    filled += read;
  }
  return filled === bytes.length && again.subarray(0, filled).equals(bytes);
}

function failedOpen(error: unknown): RawRead {
  const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
  return code === 'ENOENT' || code === 'ENOTDIR' ? { kind: 'missing' } : { kind: 'error', signature: undefined, code };
}
