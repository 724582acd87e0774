import { constants, existsSync } from 'node:fs';
import { type FileHandle, open, readlink, realpath } from 'node:fs/promises';
import { join } from 'node:path';

/** Whether an open descriptor's path can be read back and listed through `/proc/self/fd` (Linux). */
const procFdAvailable = process.platform === 'linux' && existsSync('/proc/self/fd');

/**
 * Opens what `relative` names below the real path `root` and returns it only when the descriptor
 * is that very path: a file or a folder swapped for a link after it was judged (anywhere along
 * the path) opens something else, and is refused instead of read. The kernel's own answer
 * (`/proc/self/fd`) is what is compared; without /proc, the real path now.
 *
 * `refuse` turns what went wrong (the open's error, or a sentence saying what the name opens now)
 * into the caller's error: the skill upload (hub/upload/skill-bundle.ts) and the workspace
 * snapshot (worker/custody/snapshot-tar-writer.ts) each name the change in their own terms.
 */
export async function openExactly(
  root: string,
  relative: string,
  flags: number,
  refuse: (cause: Error | string) => Error,
): Promise<FileHandle> {
  const expected = relative === '' ? root : join(root, relative);
  let handle: FileHandle;
  try {
    handle = await open(expected, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw refuse(error as Error);
  }
  try {
    const opened = procFdAvailable ? await readlink(`/proc/self/fd/${handle.fd}`) : await realpath(expected);
    if (opened !== expected) throw refuse(`it now opens ${JSON.stringify(opened)}`);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * A path that reaches the folder open on `handle` itself (its `/proc/self/fd` name), so a listing
 * through it cannot be sent elsewhere by a later swap; without /proc, `fallback` (the folder's path).
 */
export function pathThroughHandle(handle: FileHandle, fallback: string): string {
  return procFdAvailable ? `/proc/self/fd/${handle.fd}` : fallback;
}
