import { closeSync, constants, existsSync, mkdirSync, openSync, readlinkSync, realpathSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import { WorkspacePathError } from './errors.js';
import { isInside } from './is-inside.js';

/**
 * Host-side file operations on a folder that a sandboxed process can change at any moment.
 *
 * Node has no openat(), so a path such as `<root>/work/inputs/x` is resolved by the kernel again on
 * every call: a folder checked a moment ago may be a link to a host folder by the time the write
 * happens. Instead, a folder is opened once and its descriptor's real path (`/proc/self/fd/<n>`) is
 * checked; every later operation names its target as `/proc/self/fd/<n>/<name>`, which the kernel
 * resolves to the very folder that was checked, whatever happens to the path since. Only the last
 * name is resolved again, and mkdir, rename, unlink, symlink and O_CREAT|O_EXCL never follow a link
 * there. That is what openat() would give, without a native module.
 *
 * Without /proc (not Linux) the fallback is the checked real path; there the per-workspace lock
 * (no command runs while the host stages or collects) is the only guarantee (see docs/workspaces.md).
 */
export const procFdAvailable = process.platform === 'linux' && existsSync('/proc/self/fd');

/** A folder opened and checked to lie inside the workspace; `entry(name)` names a child through it. */
export interface AnchoredFolder {
  /** Real path of the folder when it was opened (for messages and workspace-relative names). */
  readonly realPath: string;
  /** A path that reaches `name` inside this very folder, immune to links planted along the way. */
  entry(name: string): string;
  close(): Promise<void>;
}

/** Where a descriptor really points; undefined when it cannot be told (no /proc). */
function descriptorPath(descriptor: number): string {
  return readlinkSync(`/proc/self/fd/${descriptor}`);
}

function anchor(root: string, folder: string, descriptor: number | undefined, shown: string): AnchoredFolder {
  if (descriptor === undefined) {
    // No /proc: check the real path now and use it.
    const real = realpathSync(folder);
    if (!isInside(root, real)) throw new WorkspacePathError(shown, 'it is a link that leads out of the workspace');
    return { realPath: real, entry: (name) => path.join(real, name), close: async () => undefined };
  }
  let real: string;
  try {
    real = descriptorPath(descriptor);
  } catch (error) {
    closeSync(descriptor);
    throw error;
  }
  if (!isInside(root, real)) {
    closeSync(descriptor);
    throw new WorkspacePathError(shown, 'it is a link that leads out of the workspace');
  }
  const base = `/proc/self/fd/${descriptor}`;
  let open = true;
  return {
    realPath: real,
    entry: (name) => `${base}/${name}`,
    close: async () => {
      if (!open) return;
      open = false;
      closeSync(descriptor);
    },
  };
}

function openDirectory(folder: string): number | undefined {
  if (!procFdAvailable) return undefined;
  return openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY);
}

/**
 * Opens the workspace-relative folder `relative` below `root` (a real path nobody else controls),
 * creating missing parts when `create` is set. Each part is opened through its checked parent; a part
 * may be a link only when what it leads to is inside the workspace (the skill copies' `out` link is).
 *
 * The opens, readlinks and mkdirs are synchronous: each is one system call of a few microseconds on
 * a path of a handful of names, while a trip through the thread pool and a promise per call cost
 * several times that (a warm skill_run made over a hundred such trips; bench/skill-run.bench.ts).
 * The same trade measure-tree.ts makes; what moves bytes (building, copying, reading files) stays
 * asynchronous.
 */
export async function openFolderInside(
  root: string,
  relative: string,
  options: { create: boolean },
): Promise<AnchoredFolder> {
  return openFolderInsideNow(root, relative, options);
}

function openFolderInsideNow(root: string, relative: string, options: { create: boolean }): AnchoredFolder {
  let current = anchor(root, root, openDirectory(root), relative || '.');
  try {
    for (const segment of relative.split('/').filter((part) => part !== '' && part !== '.')) {
      if (segment === '..') throw new WorkspacePathError(relative, 'it climbs out of the workspace');
      const child = current.entry(segment);
      let descriptor: number | undefined;
      try {
        descriptor = openDirectory(child);
        if (descriptor === undefined) realpathSync(child);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOTDIR') throw new WorkspacePathError(relative, `"${segment}" is not a folder`);
        if (code !== 'ENOENT') throw error;
        if (!options.create) throw new WorkspacePathError(relative, `"${segment}" does not exist`);
        // mkdir never follows a link in the last name: a link planted there now fails with EEXIST.
        mkdirSync(child, { mode: 0o755 });
        descriptor = openDirectory(child);
      }
      const next = anchor(root, child, descriptor, relative);
      void current.close();
      current = next;
    }
    return current;
  } catch (error) {
    void current.close();
    throw error;
  }
}

/** Runs `work` with the folder open, closing it afterwards. */
export async function withFolderInside<T>(
  root: string,
  relative: string,
  options: { create: boolean },
  work: (folder: AnchoredFolder) => Promise<T> | T,
): Promise<T> {
  const folder = openFolderInsideNow(root, relative, options);
  try {
    return await work(folder);
  } finally {
    await folder.close();
  }
}

/**
 * Opens an existing regular file for reading and returns it only when the file opened lies inside
 * `root`. The last name is not followed (O_NOFOLLOW), a FIFO cannot block the open (O_NONBLOCK), and
 * whatever links were swapped into the path, the check is made on what was actually opened.
 */
export async function openFileInside(root: string, filePath: string): Promise<FileHandle> {
  const handle = await open(filePath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!openedFileInside(handle.fd, filePath, root))
      throw new WorkspacePathError(filePath, 'it is reached through a link that leads out of the workspace');
    if (!(await handle.stat()).isFile()) throw new WorkspacePathError(filePath, 'it is not a regular file');
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Whether the file open on `descriptor` (opened by `filePath`) lies inside `root`, judged on what
 * was opened: its descriptor's path under /proc (one readlink, a few microseconds, so direct).
 * Without /proc it is the path's real path now, which a swap can still race (docs/workspaces.md).
 */
export function openedFileInside(descriptor: number, filePath: string, root: string): boolean {
  const opened = procFdAvailable ? readlinkSync(`/proc/self/fd/${descriptor}`) : realpathSync(filePath);
  return isInside(root, opened);
}

/** Reads at most `limit` bytes from an open file; `size` is the file's full size. */
export async function readHead(handle: FileHandle, limit: number): Promise<{ data: Buffer; sizeBytes: number }> {
  const { size } = await handle.stat();
  const buffer = Buffer.alloc(Math.min(size, limit));
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return { data: buffer.subarray(0, filled), sizeBytes: size };
}
