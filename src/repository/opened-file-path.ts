import { existsSync, readlinkSync } from 'node:fs';

/** Whether an open file's path can be read back from its descriptor (`/proc/self/fd`, Linux). */
const openedPathKnown = process.platform === 'linux' && existsSync('/proc/self/fd');

/**
 * The path of the file open on `descriptor`, as the kernel resolved it at the open (its name under
 * /proc, one readlink of a few microseconds), or undefined where that cannot be told (no /proc).
 * A read checks it against the path it checked beforehand: a folder swapped for a link between the
 * check and the open leads elsewhere, and only the opened file's own path shows it.
 */
export function openedFilePath(descriptor: number): string | undefined {
  return openedPathKnown ? readlinkSync(`/proc/self/fd/${descriptor}`) : undefined;
}
