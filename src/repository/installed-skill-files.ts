import type { Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { unhashedFolderNames } from './skill-digest.js';

/** One entry of an installed skill folder, by `/`-separated path relative to the folder. */
export interface InstalledEntry {
  readonly path: string;
  readonly kind: 'file' | 'link' | 'other';
  readonly stats: Stats;
}

/**
 * Every entry below an installed skill folder, without following links, leaving out `.git` and
 * `node_modules` as the `skills` CLI's hash does. Sorted by path so differences list in a stable order.
 * A folder deeper than `maxDepth` or with more than `maxEntries` entries throws: an installed skill is
 * small, and walking an unbounded tree on every load would be the cost a lock check must not have.
 */
export async function listInstalledEntries(
  folder: string,
  limits: { maxDepth: number; maxEntries: number } = { maxDepth: 32, maxEntries: 20_000 },
): Promise<InstalledEntry[]> {
  const entries: InstalledEntry[] = [];
  const walk = async (absolute: string, relative: string, depth: number): Promise<void> => {
    if (depth > limits.maxDepth) throw new Error(`${absolute} is more than ${limits.maxDepth} folders deep`);
    const names = await readdir(absolute);
    await Promise.all(
      names.map(async (name) => {
        const path = relative === '' ? name : `${relative}/${name}`;
        const stats = await lstat(join(absolute, name));
        if (stats.isDirectory()) {
          if (unhashedFolderNames.has(name)) return;
          await walk(join(absolute, name), path, depth + 1);
          return;
        }
        if (entries.length >= limits.maxEntries)
          throw new Error(`${folder} holds more than ${limits.maxEntries} files`);
        entries.push({ path, kind: stats.isFile() ? 'file' : stats.isSymbolicLink() ? 'link' : 'other', stats });
      }),
    );
  };
  await walk(folder, '', 0);
  entries.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
  return entries;
}

/** What identifies a file's content without reading it: size, modification and change times, inode. */
export function statSignature(stats: Stats): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}:${stats.mode}`;
}
