import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { mapWithConcurrency } from '../map-with-concurrency.js';
import type { ArchiveEntry } from './archive-entry.js';

/** Files written at once: enough to keep the thread pool busy without a burst of open handles. */
const writeConcurrency = 16;

/**
 * Writes checked entries below `folder`, which should be new and empty. Folders are made first,
 * then files are written several at a time. Files are created with the exclusive flag, so two names
 * that one file system treats as the same (`A.md` and `a.md` on a case-insensitive disk) fail
 * instead of one silently replacing the other. Modes are the archive's permission bits, always
 * with owner read and write (so the tree can be removed), never set-id or sticky bits, and trimmed
 * by the process umask as every extractor does.
 */
export async function writeArchiveEntries(folder: string, entries: readonly ArchiveEntry[]): Promise<void> {
  const folders = new Map<string, number>([[folder, 0o755]]);
  for (const entry of entries) {
    const target = join(folder, entry.path);
    if (entry.type === 'directory') folders.set(target, (entry.mode & 0o777) | 0o700);
    else if (!folders.has(dirname(target))) folders.set(dirname(target), 0o755);
  }
  // Sorted, a parent is always made before its children, so no call needs `recursive`'s extra stats.
  for (const path of [...folders.keys()].sort()) await mkdir(path, { recursive: true, mode: folders.get(path) });
  const files = entries.filter((entry) => entry.type === 'file');
  await mapWithConcurrency(files, writeConcurrency, (entry) =>
    writeFile(join(folder, entry.path), entry.data, { flag: 'wx', mode: (entry.mode & 0o777) | 0o600 }),
  );
}
