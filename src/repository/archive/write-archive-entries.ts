import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ArchiveEntry } from './archive-entry.js';

/**
 * Writes checked entries below `folder`, which should be new and empty. Files are created with the
 * exclusive flag, so two names that one file system treats as the same (`A.md` and `a.md` on a
 * case-insensitive disk) fail instead of one silently replacing the other. Owners keep read and
 * write on everything so the tree can always be removed; set-id and sticky bits are never applied.
 */
export async function writeArchiveEntries(folder: string, entries: readonly ArchiveEntry[]): Promise<void> {
  const made = new Set<string>();
  const ensureFolder = async (path: string): Promise<void> => {
    if (made.has(path)) return;
    await mkdir(path, { recursive: true, mode: 0o755 });
    made.add(path);
  };
  await ensureFolder(folder);
  const folderModes: [string, number][] = [];
  for (const entry of entries) {
    const target = join(folder, entry.path);
    if (entry.type === 'directory') {
      await ensureFolder(target);
      folderModes.push([target, (entry.mode & 0o777) | 0o700]);
      continue;
    }
    await ensureFolder(dirname(target));
    await writeFile(target, entry.data, { flag: 'wx', mode: (entry.mode & 0o777) | 0o600 });
    // The process umask trims the mode given at creation; the archive's bits are what was asked for.
    await chmod(target, (entry.mode & 0o777) | 0o600);
  }
  // Folders last: a folder the archive marks read-only must still take the files inside it.
  for (const [path, mode] of folderModes) await chmod(path, mode);
}
