import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  createWriteStream,
  fstatSync,
  openSync,
  readSync,
  writeFileSync,
} from 'node:fs';
import { chmod, copyFile, type FileHandle, mkdir, open, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { openedFileInside, procFdAvailable } from './anchored-folder.js';
import { CallSlices } from './call-slices.js';
import { WorkspacePathError } from './errors.js';
import type { FileContent, PlacedTree, TreeEntry } from './workspace-files.js';

/**
 * Writes `tree` at `destination`, a fresh path in the host build area (host-build-area.ts) that no
 * command can reach, so plain path-based writes are safe here. Returns each file's sha256 when
 * `digests` is set, computed while copying: the first staging of a skill used to copy and then read
 * everything again to hash it, which cost several times a plain `cp -r`. Without it, host files are
 * copied copy-on-write where the filesystem can (FICLONE), without passing through memory.
 */
export async function buildTree(
  destination: string,
  tree: PlacedTree,
  digests: boolean,
): Promise<Record<string, string> | undefined> {
  const hashes: Record<string, string> = {};
  if (tree.kind === 'link') {
    await symlink(tree.target, destination);
    return digests ? hashes : undefined;
  }
  if (tree.kind === 'file') {
    const digest = await writeContent(tree.content, destination, tree.mode, digests, Buffer.allocUnsafe(chunkBytes));
    if (digest !== undefined) hashes[''] = digest;
    return digests ? hashes : undefined;
  }
  await mkdir(destination, { mode: tree.mode });
  // Folders made so far: a file's folder is made once, not asked for again before every file.
  const made = new Set<string>([destination]);
  const makeFolder = async (folder: string): Promise<void> => {
    if (made.has(folder)) return;
    await mkdir(folder, { recursive: true, mode: 0o755 });
    made.add(folder);
  };
  const files: Array<{ entry: Extract<TreeEntry, { kind: 'file' }>; target: string }> = [];
  // Folders and links in order (parents first); files afterwards, several at once.
  for (const entry of tree.entries) {
    const target = entryPath(destination, entry.path);
    if (entry.kind === 'file') {
      files.push({ entry, target });
      continue;
    }
    await makeFolder(path.dirname(target));
    if (entry.kind === 'directory') {
      await mkdir(target, { mode: entry.mode });
      made.add(target);
    } else await symlink(entry.target, target);
  }
  for (const { target } of files) await makeFolder(path.dirname(target));
  let next = 0;
  const slices = new CallSlices();
  // One read buffer for every direct copy: they run one at a time, on this thread.
  const smallFileBuffer = Buffer.allocUnsafe(smallFileBytes + 1);
  const worker = async (): Promise<void> => {
    const buffer = digests ? Buffer.allocUnsafe(chunkBytes) : emptyBuffer;
    while (next < files.length) {
      const { entry, target } = files[next++]!;
      const content = entry.content;
      if (!digests && 'hostFile' in content && isSmall(content.size)) {
        if (slices.due()) await slices.yield();
        if (copySmallFile(content.hostFile, content.within, target, entry.mode, smallFileBuffer)) continue;
      }
      const digest = await writeContent(entry.content, target, entry.mode, digests, buffer);
      if (digest !== undefined) hashes[entry.path] = digest;
    }
  };
  await Promise.all(Array.from({ length: Math.min(copyConcurrency, files.length) }, worker));
  return digests ? hashes : undefined;
}

/**
 * A host file this small (by the size its scan saw) is copied by direct calls (call-slices.ts),
 * through memory: each call then holds the event loop for microseconds, and the slices bound how
 * many run in a row. What the scan saw is checked again on the open file first (`copySmallFile`).
 */
const smallFileBytes = 128 * 1024;

function isSmall(size: number | undefined): boolean {
  return size !== undefined && size <= smallFileBytes;
}

/**
 * Copies a small host file with direct calls and returns true, or returns false, having written
 * nothing, when it has grown past `smallFileBytes` since its scan: the thread pool then copies it,
 * so a file made large on purpose cannot hold the event loop for the length of its copy. The file
 * is opened without following a link (one swapped in since the scan would make the host copy what
 * it points to) and without blocking (a FIFO swapped in would wait for a writer on this thread).
 */
function copySmallFile(
  source: string,
  within: string | undefined,
  target: string,
  mode: number,
  buffer: Buffer,
): boolean {
  let descriptor: number;
  try {
    descriptor = openSync(source, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new WorkspacePathError(source, 'it became a link while being copied');
    throw error;
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) throw new WorkspacePathError(source, 'it is no longer a regular file');
    checkOpenedInside(descriptor, source, within);
    if (stats.size > smallFileBytes) return false;
    let length = 0;
    for (;;) {
      const read = readSync(descriptor, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      // Still growing while read: the thread pool takes it from the start.
      if (length === buffer.length) return false;
    }
    writeFileSync(target, buffer.subarray(0, length), { flag: 'wx', mode });
    // The mode is set explicitly: the copy belongs to the session, and the umask must not decide it.
    chmodSync(target, mode);
    return true;
  } finally {
    closeSync(descriptor);
  }
}

/**
 * In the kernel (a reflink, else copy_file_range), never through this process's memory; EXCL like
 * every other write here: a name that exists already (a link) is never written through.
 */
const copyFlags = constants.COPYFILE_FICLONE | constants.COPYFILE_EXCL;

/** What a worker that never hashes holds instead of a read buffer. */
const emptyBuffer = Buffer.alloc(0);

/** Bytes read at a time; one buffer per worker, reused for every file it handles. */
const chunkBytes = 1024 * 1024;

/**
 * Files copied or hashed at once: twice libuv's default four threads, so the pool is never idle
 * while this thread hands it the next file, and reads waiting on the disk overlap.
 */
const copyConcurrency = 8;

/** A tree entry's path under `destination`, refused when it could climb out of it. */
function entryPath(destination: string, relative: string): string {
  const parts = relative.split('/');
  if (relative === '' || parts.some((part) => part === '' || part === '.' || part === '..'))
    throw new WorkspacePathError(relative, 'a tree entry path must be relative, without empty, "." or ".." parts');
  return path.join(destination, ...parts);
}

async function writeContent(
  content: FileContent,
  target: string,
  mode: number,
  digest: boolean,
  buffer: Buffer,
): Promise<string | undefined> {
  if ('data' in content) {
    await writeFile(target, content.data, { mode, flag: 'wx' });
    return digest ? createHash('sha256').update(content.data).digest('hex') : undefined;
  }
  if (digest) return copyFileHashing(content.hostFile, content.within, target, mode, buffer);
  const source = await openSourceFile(content.hostFile, content.within);
  try {
    if (procFdAvailable) {
      // The opened file by its name under /proc: the kernel copies (a reflink, else
      // copy_file_range) the file opened above, whatever the path names by now.
      await copyFile(`/proc/self/fd/${source.fd}`, target, copyFlags).catch((error: NodeJS.ErrnoException) => {
        throw namingHostFile(error, content.hostFile, target);
      });
    } else {
      await pipeline(source.createReadStream({ autoClose: false }), createWriteStream(target, { flags: 'wx', mode }));
    }
  } finally {
    await source.close();
  }
  // The mode is set explicitly: the copy belongs to the session, which may change it.
  await chmod(target, mode);
  return undefined;
}

/** A copy's error as copyFile gives it for the host file's own path, not the /proc name it copied through. */
function namingHostFile(error: NodeJS.ErrnoException, hostFile: string, target: string): NodeJS.ErrnoException {
  const named: NodeJS.ErrnoException = new Error(`${error.code ?? 'EIO'}: cannot copy '${hostFile}' -> '${target}'`, {
    cause: error,
  });
  if (error.code !== undefined) named.code = error.code;
  if (error.errno !== undefined) named.errno = error.errno;
  named.path = hostFile;
  return named;
}

/**
 * Opens a host file to copy it without following a link at its last name (a link swapped in since
 * the scan would make the host copy what it points to, a host secret into a session's workspace)
 * and without blocking (a FIFO swapped in would hold a thread-pool thread until someone wrote to
 * it); anything but a regular file, or a file outside `within`, is refused, naming the file.
 */
async function openSourceFile(source: string, within: string | undefined): Promise<FileHandle> {
  const handle = await open(source, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ELOOP') throw new WorkspacePathError(source, 'it became a link while being copied');
      throw error;
    },
  );
  try {
    if (!(await handle.stat()).isFile()) throw new WorkspacePathError(source, 'it is no longer a regular file');
    checkOpenedInside(handle.fd, source, within);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/**
 * Refuses an opened host file that does not lie inside `within` (a real path). O_NOFOLLOW guards
 * only the last name: a folder on the file's path swapped for a link since the scan would
 * otherwise make the host copy a file from wherever that link leads.
 */
function checkOpenedInside(descriptor: number, source: string, within: string | undefined): void {
  if (within !== undefined && !openedFileInside(descriptor, source, within))
    throw new WorkspacePathError(source, `it is reached through a link that leads out of ${within}`);
}

async function copyFileHashing(
  from: string,
  within: string | undefined,
  to: string,
  mode: number,
  buffer: Buffer,
): Promise<string> {
  const hash = createHash('sha256');
  const input = await openSourceFile(from, within);
  try {
    // O_EXCL: the destination is new; a name that exists already (a link) is never written through.
    const output = await open(
      to,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      for (;;) {
        const { bytesRead } = await input.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        const chunk = buffer.subarray(0, bytesRead);
        const written = output.write(chunk, 0, bytesRead);
        hash.update(chunk);
        await written;
      }
      // The mode is set explicitly: the umask would strip bits from the one given to open().
      await output.chmod(mode);
    } finally {
      await output.close();
    }
  } finally {
    await input.close();
  }
  return hash.digest('hex');
}
