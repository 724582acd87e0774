import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  type Stats,
} from 'node:fs';
import { isInside } from './is-inside.js';
import type { WorkspaceSizeLimits, WorkspaceUsage } from './workspace-files.js';

/**
 * Counts what the tree below `root` holds (`WorkspaceFiles.measure` of the host runtimes): one
 * lstat per entry, each inode once, links never followed, stopping as soon as a limit is passed.
 *
 * Written by hand for speed and for what a library walk does not do. The calls are synchronous, in
 * slices of at most `sliceMs` with the event loop let through in between: one promise and one trip
 * through the thread pool per lstat cost several times the lstat itself, which is what made a
 * quota check cost more than the run it checked (bench/workspace-quota.bench.ts). Every entry is
 * still looked at on every walk: a file that grows changes neither its folder's times nor its
 * inode, and the command may have changed anything since the last walk (docs/workspaces.md).
 *
 * The command that fills the tree owns it, so it may take the host's permission away: a folder
 * made unreadable (`chmod 000`, or without read or search permission) kept a non-root host's walk
 * out, and its bytes went uncounted. Such a folder gets its owner's read, write and search
 * permission back before it is read (the host user owns the workspace and every file a command
 * made in it, and a folder that can be read can also be cleaned up); the change goes through a
 * descriptor of the very folder that was lstat'ed, opened without following a link and checked to
 * lie inside `root`, so a link swapped in cannot turn it onto a host folder. A folder that still
 * cannot be read is not skipped: the usage says so (`unreadable`) and counts as over the disk limit.
 */
export async function measureTree(root: string, limits: WorkspaceSizeLimits): Promise<WorkspaceUsage> {
  const usage: WorkspaceUsage = { bytes: 0, files: 0 };
  const seen = new Set<number>();
  const stack: Frame[] = [];
  // The workspace-relative name is put together only for the message: kept in every frame, the
  // names of a tree nested thousands of levels deep would take memory quadratic in its depth.
  const refuse = (names: string[], error: unknown): WorkspaceUsage => {
    usage.exceeded = 'disk';
    usage.unreadable = `${names.length === 0 ? '.' : names.join('/')} (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    return usage;
  };
  const namesTo = (last?: string): string[] => [
    ...stack.slice(1).map((frame) => frame.name),
    ...(last === undefined ? [] : [last]),
  ];
  try {
    // The root is the host's own real path: nothing can be swapped in for it. A root that is gone
    // (the workspace removed while a watch was on its way) holds nothing; any other error leaves
    // its size unknown, and unknown is not taken for empty.
    let rootStats: Stats;
    try {
      rootStats = lstatSync(root);
    } catch (error) {
      return goneMeanwhile(error) ? usage : refuse([], error);
    }
    if (!searchable(rootStats)) repairFolder(root, root, rootStats);
    const opened = openFolder(root, '', 0, undefined);
    if ('error' in opened) return refuse([], opened.error);
    if (opened.frame === undefined) return usage;
    stack.push(opened.frame);
    let sliceStart = performance.now();
    let steps = 0;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as Frame;
      if (frame.next >= frame.names.length) {
        stack.pop();
        if (frame.descriptor !== undefined) closeSync(frame.descriptor);
        continue;
      }
      const name = frame.names[frame.next] as string;
      frame.next += 1;
      steps += 1;
      if (steps % stepsBetweenClockChecks === 0 && performance.now() - sliceStart > sliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      const entryPath = `${frame.path}/${name}`;
      let entry: Stats | undefined;
      try {
        entry = lstatSync(entryPath, { throwIfNoEntry: false });
      } catch (error) {
        if (goneMeanwhile(error)) continue;
        // Search permission taken away since the folder was checked, say: what it holds cannot be seen.
        return refuse(namesTo(), error);
      }
      if (entry === undefined) continue;
      // Only an inode with more than one name can be met twice (a folder never has two). One that
      // gains a second name during the walk is counted twice: an overcount, never an undercount.
      if (entry.nlink < 2 || entry.isDirectory() || !seen.has(entry.ino)) {
        if (entry.nlink > 1 && !entry.isDirectory()) seen.add(entry.ino);
        usage.files += 1;
        usage.bytes += entry.blocks * 512;
        if (usage.bytes > limits.maxBytes) usage.exceeded = 'disk';
        else if (usage.files > limits.maxFiles) usage.exceeded = 'files';
        if (usage.exceeded !== undefined) return usage;
      }
      if (!entry.isDirectory()) continue;
      if (!searchable(entry)) repairFolder(root, entryPath, entry);
      const child = openFolder(entryPath, name, frame.sinceAnchor + 1, entry);
      if ('error' in child) return refuse(namesTo(name), child.error);
      if (child.frame !== undefined) stack.push(child.frame);
    }
    return usage;
  } finally {
    for (const frame of stack) if (frame.descriptor !== undefined) closeSync(frame.descriptor);
  }
}

/** A folder being walked: the path its entries are reached by, and which entry comes next. */
interface Frame {
  path: string;
  /** The folder's own name ('' for the root). */
  name: string;
  names: string[];
  next: number;
  sinceAnchor: number;
  /** The descriptor `path` goes through (`/proc/self/fd/<n>`), closed when the folder is done. */
  descriptor?: number;
}

/**
 * Lists a folder. Every `anchorEvery` levels it is opened and walked on from `/proc/self/fd/<n>`,
 * so no path handed to the kernel holds more than that many names: a command can nest folders
 * deeper than any one path can name (PATH_MAX, 4,096 bytes) with relative steps, and a walk by
 * full paths could not lstat below that depth. One descriptor stays open per `anchorEvery` levels.
 * A folder gone or replaced meanwhile yields no frame; one that refuses to be read, an error.
 */
function openFolder(
  folderPath: string,
  name: string,
  sinceAnchor: number,
  expected: Stats | undefined,
): { frame: Frame | undefined } | { error: unknown } {
  let descriptor: number | undefined;
  let path = folderPath;
  try {
    if (sinceAnchor >= anchorEvery && openFilesFolder !== undefined) {
      // The last name is not followed: a command may have swapped the folder for a link since its lstat.
      descriptor = openSync(folderPath, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      const opened = fstatSync(descriptor);
      if (expected !== undefined && (opened.ino !== expected.ino || opened.dev !== expected.dev)) {
        closeSync(descriptor);
        return { frame: undefined };
      }
      path = `${openFilesFolder}/${descriptor}`;
      sinceAnchor = 0;
    }
    const names = readdirSync(path);
    return {
      frame: { path, name, names, next: 0, sinceAnchor, ...(descriptor === undefined ? {} : { descriptor }) },
    };
  } catch (error) {
    if (descriptor !== undefined) closeSync(descriptor);
    return goneMeanwhile(error) ? { frame: undefined } : { error };
  }
}

/**
 * An error that means the entry is no longer there as it was listed: removed, or (ENOTDIR, ELOOP)
 * a folder on the way swapped for a file or a link. Any other (EACCES, EMFILE...) leaves what the
 * folder holds unknown, and the walk must not take unknown for empty.
 */
function goneMeanwhile(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP';
}

/** The owner may list the folder and look up its entries. */
function searchable(stats: Stats): boolean {
  return (stats.mode & ownerReadAndSearch) === ownerReadAndSearch;
}

const ownerReadAndSearch = 0o500;

/**
 * Gives a folder's owner read, write and search permission back. Through a descriptor opened with
 * O_PATH (which needs no permission on the folder itself) and O_NOFOLLOW, of the inode that was
 * lstat'ed, whose real path lies inside `root`: chmod of `/proc/self/fd/<n>` changes that inode
 * and nothing a link could point to. A failure is left to the read that follows, which reports it.
 */
function repairFolder(root: string, folderPath: string, expected: Stats): void {
  if (openFilesFolder === undefined) return;
  let descriptor: number | undefined;
  try {
    descriptor = openSync(folderPath, openPath | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    const opened = fstatSync(descriptor);
    if (opened.ino !== expected.ino || opened.dev !== expected.dev) return;
    if (!isInside(root, readlinkSync(`${openFilesFolder}/${descriptor}`))) return;
    chmodSync(`${openFilesFolder}/${descriptor}`, (opened.mode & 0o7777) | 0o700);
  } catch {
    // Left as it is; the read that follows fails and says so.
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/**
 * O_PATH: opens a name without asking for read permission on it (the kernel's value on the
 * architectures Node runs Linux on; Node's fs.constants does not name it).
 */
const openPath = 0o10000000;

/** Linux names every open file of a process here; elsewhere the walk goes by full paths. */
const openFilesFolder = process.platform === 'linux' && existsSync('/proc/self/fd') ? '/proc/self/fd' : undefined;

/** Levels between two folders the walk opens: 14 names of at most 255 bytes stay under PATH_MAX. */
const anchorEvery = 14;

/** Longest run of synchronous calls before the event loop gets a turn. */
const sliceMs = 8;

/** Entries between two looks at the clock: a cold lstat waits on the disk, so not many. */
const stepsBetweenClockChecks = 16;
