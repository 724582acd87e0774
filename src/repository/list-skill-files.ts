import type { Dirent } from 'node:fs';
import { readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { compareNames } from './compare-names.js';
import { resolveLink, skippedFolderNames } from './resolve-link.js';

export interface SkillFileListing {
  /** Sorted `/`-separated paths relative to the skill folder. */
  files: string[];
  warnings: string[];
}

export interface SkillFileBounds {
  maxDepth: number;
  maxFiles: number;
}

/**
 * Every regular file of a skill folder, links included only when they resolve inside the folder.
 * The same folders are skipped as in a root scan, so a skill that vendors `node_modules` does not
 * list thousands of files.
 */
export async function listSkillFiles(folder: string, bounds: SkillFileBounds): Promise<SkillFileListing> {
  const boundary = await realpath(folder);
  const files: string[] = [];
  const warnings: string[] = [];
  const visited = new Set<string>([boundary]);
  let level: { path: string; realPath: string; relative: string; depth: number }[] = [
    { path: folder, realPath: boundary, relative: '', depth: 0 },
  ];
  while (level.length > 0) {
    const next: typeof level = [];
    const listings = await Promise.all(
      level.map((current) => readdir(current.path, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => error)),
    );
    for (const [index, current] of level.entries()) {
      const listing = listings[index];
      if (!Array.isArray(listing)) {
        warnings.push(`cannot read folder ${current.path}: ${listing?.code ?? listing?.message}`);
        continue;
      }
      for (const entry of listing as Dirent[]) {
        const relative = current.relative === '' ? entry.name : `${current.relative}/${entry.name}`;
        const path = join(current.path, entry.name);
        let isFile = entry.isFile();
        let isFolder = entry.isDirectory();
        let realPath = join(current.realPath, entry.name);
        if (entry.isSymbolicLink()) {
          const target = await resolveLink(path, boundary);
          if (target.kind !== 'inside') continue;
          isFile = target.stats.isFile();
          isFolder = target.stats.isDirectory();
          realPath = target.realPath;
        }
        if (isFile) {
          if (files.length >= bounds.maxFiles) {
            warnings.push(`listed only the first ${bounds.maxFiles} files of ${folder} (maxFiles)`);
            return { files: files.sort(compareNames), warnings };
          }
          files.push(relative);
        } else if (isFolder && !skippedFolderNames.has(entry.name)) {
          // A folder reached twice (by its name and through a link, or by a link loop) is listed once.
          if (visited.has(realPath)) continue;
          visited.add(realPath);
          if (current.depth + 1 > bounds.maxDepth) {
            warnings.push(`did not list ${path}: deeper than ${bounds.maxDepth} levels (maxDepth)`);
            continue;
          }
          next.push({ path, realPath, relative, depth: current.depth + 1 });
        }
      }
    }
    level = next;
  }
  return { files: files.sort(compareNames), warnings };
}
