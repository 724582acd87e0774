import { constants } from 'node:fs';
import { type FileHandle, lstat, readdir, readlink, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { tarBlockSize } from '../../repository/archive/tar-header.js';
import { openExactly, pathThroughHandle } from '../../repository/open-exactly.js';
import { WorkspaceSnapshotError } from './custody-errors.js';
import { linkTargetProblem } from './snapshot-links.js';

/** One entry of a workspace as the snapshot records it. */
interface SnapshotEntry {
  /** `/`-separated, relative to the workspace folder. */
  path: string;
  type: 'directory' | 'file' | 'symlink';
  mode: number;
  linkTarget?: string;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
/** Bytes read from a file at a time while streaming it into the tar. */
const readChunkBytes = 256 * 1024;
/** The largest size the 11 octal digits of a ustar size field hold; larger files get a pax size record. */
const maxUstarSize = 0o77777777777;

function compareBytes(left: string, right: string): number {
  return Buffer.compare(Buffer.from(left, 'utf8'), Buffer.from(right, 'utf8'));
}

/**
 * Opens what `relative` names below the workspace's real path only when it is still that very path
 * (openExactly): a name a sandboxed process swapped for a link opens something else, which is
 * refused as a change during the snapshot rather than read.
 */
function openUnchanged(root: string, relative: string, flags: number) {
  return openExactly(root, relative, flags, (cause) => changedDuringSnapshot(relative, cause));
}

function changedDuringSnapshot(relative: string, cause: unknown): WorkspaceSnapshotError {
  if (cause instanceof WorkspaceSnapshotError) return cause;
  const detail = typeof cause === 'string' ? cause : (cause as Error).message;
  return new WorkspaceSnapshotError(
    `it changed during the snapshot (replaced, by a link or otherwise: ${detail}); save again once the workspace is still`,
    relative === '' ? '.' : relative,
    typeof cause === 'string' ? undefined : { cause },
  );
}

/**
 * Lists the workspace depth first, each folder's names sorted by their UTF-8 bytes, a folder before
 * what it holds: the order is the same on every machine, so equal content gives equal bytes.
 * Sockets, FIFOs and devices carry no content a restore could bring back and are left out. Each
 * folder is opened and checked to be itself (openUnchanged), and its entries are listed and examined
 * through that descriptor, so a folder swapped for a link to a host folder is never listed.
 */
async function listWorkspace(root: string): Promise<SnapshotEntry[]> {
  const entries: SnapshotEntry[] = [];
  const visit = async (relative: string): Promise<void> => {
    const handle = await openUnchanged(root, relative, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      const through = pathThroughHandle(handle, join(root, relative));
      const names = (
        await readdir(through, { encoding: 'buffer' }).catch((error: unknown) => {
          throw changedDuringSnapshot(relative, error);
        })
      ).map((raw) => {
        try {
          return strictUtf8.decode(raw);
        } catch {
          throw new WorkspaceSnapshotError(
            'the name is not UTF-8, which a snapshot cannot record faithfully',
            `${relative}/${raw.toString('latin1')}`,
          );
        }
      });
      names.sort(compareBytes);
      for (const name of names) {
        const path = relative === '' ? name : `${relative}/${name}`;
        try {
          const stats = await lstat(join(through, name));
          if (stats.isDirectory()) {
            entries.push({ path, type: 'directory', mode: stats.mode & 0o777 });
            await visit(path);
          } else if (stats.isFile()) {
            entries.push({ path, type: 'file', mode: stats.mode & 0o777 });
          } else if (stats.isSymbolicLink()) {
            entries.push({ path, type: 'symlink', mode: 0o777, linkTarget: await readlink(join(through, name)) });
          }
        } catch (error) {
          throw changedDuringSnapshot(path, error);
        }
      }
    } finally {
      await handle.close();
    }
  };
  await visit('');
  return entries;
}

function writeString(block: Buffer, offset: number, length: number, value: string): void {
  block.write(value, offset, length, 'utf8');
}

function writeOctal(block: Buffer, offset: number, length: number, value: number): void {
  block.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length, 'latin1');
}

/** A pax record: its decimal length counts itself, so the length is found by trying digit counts. */
function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  const bodyBytes = Buffer.byteLength(body, 'utf8');
  let length = bodyBytes + 1;
  while (String(length).length + bodyBytes !== length) length = String(length).length + bodyBytes;
  return Buffer.from(`${length}${body}`, 'utf8');
}

function header(name: string, type: string, mode: number, size: number, linkName: string): Buffer {
  const block = Buffer.alloc(tarBlockSize);
  writeString(block, 0, 100, name);
  writeOctal(block, 100, 8, mode);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, size);
  writeOctal(block, 136, 12, 0);
  block.write(type, 156, 1, 'latin1');
  writeString(block, 157, 100, linkName);
  block.write('ustar\0', 257, 6, 'latin1');
  block.write('00', 263, 2, 'latin1');
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
  return block;
}

function padding(size: number): Buffer {
  const rest = size % tarBlockSize;
  return Buffer.alloc(rest === 0 ? 0 : tarBlockSize - rest);
}

/**
 * The headers of one entry: a pax extended header first when the name or link target does not fit
 * its ustar field as plain ASCII, or the size does not fit 11 octal digits, so no name is ever cut
 * or split differently by different readers.
 */
function entryHeaders(entry: SnapshotEntry, size: number): Buffer[] {
  const name = entry.type === 'directory' ? `${entry.path}/` : entry.path;
  const link = entry.linkTarget ?? '';
  const fits = (text: string) => /^[\x20-\x7e]*$/.test(text) && text.length < 100;
  const records: Buffer[] = [];
  if (!fits(name)) records.push(paxRecord('path', name));
  if (!fits(link)) records.push(paxRecord('linkpath', link));
  if (size > maxUstarSize) records.push(paxRecord('size', String(size)));
  const type = entry.type === 'directory' ? '5' : entry.type === 'symlink' ? '2' : '0';
  const plain = header(
    fits(name) ? name : 'pax-long-name',
    type,
    entry.mode,
    size > maxUstarSize ? 0 : size,
    fits(link) ? link : 'pax-long-link',
  );
  if (records.length === 0) return [plain];
  const pax = Buffer.concat(records);
  return [header('././@PaxHeader', 'x', 0o644, pax.length, ''), pax, padding(pax.length), plain];
}

async function* fileBytes(handle: FileHandle, size: number, path: string): AsyncGenerator<Buffer> {
  const buffer = Buffer.alloc(Math.min(readChunkBytes, Math.max(size, 1)));
  let remaining = size;
  while (remaining > 0) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, remaining), null);
    if (bytesRead === 0)
      throw new WorkspaceSnapshotError(`the file shrank below ${size} bytes while it was read`, path);
    remaining -= bytesRead;
    yield Buffer.from(buffer.subarray(0, bytesRead));
  }
}

/**
 * The workspace in `folder` as a POSIX pax tar, streamed a file at a time (docs/workspace-custody.md,
 * "Snapshot format"): entries sorted, owner 0:0 with no names, every mtime 0, permission bits only.
 * Equal content gives equal bytes, so the tar's SHA-256 names the content and an unchanged workspace
 * needs no new snapshot. Symbolic links are kept as they are, wherever they point (a virtualenv's
 * `python -> /usr/bin/python3`): snapshot-links.ts says why that is safe. A sandboxed process may still be
 * running: every folder and file is opened and checked to be the very path listed (no link swapped
 * in anywhere along it) before it is listed or read, a change is a WorkspaceSnapshotError naming
 * the entry, and a file is read to the size its open descriptor reports.
 */
export async function* writeWorkspaceSnapshot(folder: string): AsyncGenerator<Buffer> {
  const root = await realpath(folder);
  const entries = await listWorkspace(root);
  const links = new Map<string, string>();
  for (const entry of entries) if (entry.type === 'symlink') links.set(entry.path, entry.linkTarget as string);
  for (const [path, target] of links) {
    const problem = linkTargetProblem(target);
    if (problem !== undefined) throw new WorkspaceSnapshotError(problem, path);
  }
  for (const entry of entries) {
    if (entry.type !== 'file') {
      yield* entryHeaders(entry, 0);
      continue;
    }
    const handle = await openUnchanged(root, entry.path, constants.O_RDONLY);
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw changedDuringSnapshot(entry.path, 'it is no longer a regular file');
      yield* entryHeaders(entry, stats.size);
      yield* fileBytes(handle, stats.size, entry.path);
      yield padding(stats.size);
    } finally {
      await handle.close();
    }
  }
  yield Buffer.alloc(tarBlockSize * 2);
}
