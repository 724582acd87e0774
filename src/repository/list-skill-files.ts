import { type Dirent, readdirSync, realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { BundledFileRule } from './bundled-file-rule.js';
import { compareNames } from './compare-names.js';
import { resolveLink } from './resolve-link.js';

export interface SkillFileListing {
  /** Sorted `/`-separated paths relative to the skill folder. */
  files: string[];
  warnings: string[];
}

export interface SkillFileBounds {
  maxDepth: number;
  maxFiles: number;
  /** Which names are left out (skipped folders, secret-looking files); a link is judged by its target too. */
  rule: BundledFileRule;
}

/**
 * Every regular file of a skill folder, links included only when they resolve inside the folder.
 * The same folders are skipped as in a root scan, so a skill that vendors `node_modules` does not
 * list thousands of files, and nothing the rule refuses to serve is listed (a link whose target is
 * refused included), so a listing never offers a file that readFile would refuse.
 */
const foldersBetweenYields = 64;

export async function listSkillFiles(folder: string, bounds: SkillFileBounds): Promise<SkillFileListing> {
  const boundary = realpathSync.native(folder);
  let foldersRead = 0;
  const files: string[] = [];
  const warnings: string[] = [];
  const visited = new Set<string>([boundary]);
  let level: { path: string; realPath: string; relative: string; depth: number }[] = [
    { path: folder, realPath: boundary, relative: '', depth: 0 },
  ];
  while (level.length > 0) {
    const next: typeof level = [];
    // Read directly: a skill is a handful of folders, and a trip through the thread pool per folder
    // cost more than the listing itself (every `get` lists). The event loop is let through every
    // `foldersBetweenYields` folders, so a skill with thousands of them does not hold it up.
    const listings: Array<Dirent[] | NodeJS.ErrnoException> = [];
    for (const current of level) {
      try {
        listings.push(readdirSync(current.path, { withFileTypes: true }));
      } catch (error) {
        listings.push(error as NodeJS.ErrnoException);
      }
      foldersRead += 1;
      if (foldersRead % foldersBetweenYields === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    for (const [index, current] of level.entries()) {
      const listing = listings[index];
      if (!Array.isArray(listing)) {
        warnings.push(`cannot read folder ${current.path}: ${listing?.code ?? listing?.message}`);
        continue;
      }
      for (const entry of listing as Dirent[]) {
        if (bounds.rule.excludes(entry.name)) continue;
        const relativePath = current.relative === '' ? entry.name : `${current.relative}/${entry.name}`;
        const path = join(current.path, entry.name);
        let isFile = entry.isFile();
        let isFolder = entry.isDirectory();
        let realPath = join(current.realPath, entry.name);
        if (entry.isSymbolicLink()) {
          const target = await resolveLink(path, boundary);
          if (target.kind !== 'inside') continue;
          if (bounds.rule.refusalOf(relative(boundary, target.realPath).split(sep).join('/')) !== undefined) continue;
          isFile = target.stats.isFile();
          isFolder = target.stats.isDirectory();
          realPath = target.realPath;
        }
        if (isFile) {
          if (files.length >= bounds.maxFiles) {
            warnings.push(`listed only the first ${bounds.maxFiles} files of ${folder} (maxFiles)`);
            return { files: files.sort(compareNames), warnings };
          }
          files.push(relativePath);
        } else if (isFolder) {
          // A folder reached twice (by its name and through a link, or by a link loop) is listed once.
          if (visited.has(realPath)) continue;
          visited.add(realPath);
          if (current.depth + 1 > bounds.maxDepth) {
            warnings.push(`did not list ${path}: deeper than ${bounds.maxDepth} levels (maxDepth)`);
            continue;
          }
          next.push({ path, realPath, relative: relativePath, depth: current.depth + 1 });
        }
      }
    }
    level = next;
  }
  return { files: files.sort(compareNames), warnings };
}
