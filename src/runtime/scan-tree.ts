import { lstat, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from './is-inside.js';

/** One entry of a scanned folder; `path` is relative to it, `/`-separated. */
export type FolderEntry =
  | { kind: 'directory'; path: string; mode: number }
  | {
      kind: 'file';
      path: string;
      mode: number;
      size: number;
      mtimeMs: number;
      /** Status change time: unlike mtime it cannot be set back, so a rewrite that restores mtime still shows. */
      ctimeMs: number;
      /** Inode: a file replaced by another (an editor's save-and-rename) has a new one. */
      ino: number;
    }
  /** A link that stays inside the folder; `target` is relative to the link's own folder. */
  | { kind: 'link'; path: string; target: string };

/** What a scan's filter says of a name: keep it (undefined), skip it, or skip it with a warning. */
export type ScanVerdict = undefined | { skip: true; warning?: string };

export interface TreeScan {
  entries: FolderEntry[];
  warnings: string[];
}

/**
 * Lists a folder without reading file contents, parents before children, names sorted. Links are
 * kept only when they resolve inside the folder (re-created as relative links in a copy); a link
 * that leaves it, or dangles, is skipped with a warning, so a copy never takes host files along.
 * Sockets, FIFOs and devices are left out. `filter` sees each name with its parent's relative path.
 */
export async function scanTree(
  folder: string,
  filter: (name: string, relativeDir: string) => ScanVerdict = () => undefined,
): Promise<TreeScan> {
  const root = await realpath(folder);
  // Every entry of a folder is looked at concurrently (the disk or cache answers several at once);
  // results are put back in sorted order, so entries and warnings do not depend on timing.
  async function walk(relativeDir: string): Promise<TreeScan> {
    const names = (await readdir(path.join(root, relativeDir))).sort();
    const visited = await Promise.all(
      names.map(async (name): Promise<TreeScan> => {
        const verdict = filter(name, relativeDir);
        if (verdict !== undefined)
          return { entries: [], warnings: verdict.warning === undefined ? [] : [verdict.warning] };
        return visit(relativeDir === '' ? name : `${relativeDir}/${name}`);
      }),
    );
    return {
      entries: visited.flatMap((result) => result.entries),
      warnings: visited.flatMap((result) => result.warnings),
    };
  }
  async function visit(relative: string): Promise<TreeScan> {
    const absolute = path.join(root, relative);
    const stats = await lstat(absolute);
    if (stats.isSymbolicLink()) {
      const resolved = await realpath(absolute).catch(() => undefined);
      if (resolved === undefined || !isInside(root, resolved)) {
        return {
          entries: [],
          warnings: [
            `skipped link "${relative}": it ${resolved === undefined ? 'dangles' : 'leads out of the skill folder'}`,
          ],
        };
      }
      const target = path.relative(path.dirname(absolute), resolved) || '.';
      return { entries: [{ kind: 'link', path: relative, target: target.split(path.sep).join('/') }], warnings: [] };
    }
    if (stats.isDirectory()) {
      const inside = await walk(relative);
      return {
        entries: [{ kind: 'directory', path: relative, mode: stats.mode & 0o777 }, ...inside.entries],
        warnings: inside.warnings,
      };
    }
    if (stats.isFile())
      return {
        entries: [
          {
            kind: 'file',
            path: relative,
            mode: stats.mode & 0o777,
            size: stats.size,
            mtimeMs: stats.mtimeMs,
            ctimeMs: stats.ctimeMs,
            ino: stats.ino,
          },
        ],
        warnings: [],
      };
    return { entries: [], warnings: [] };
  }
  return walk('');
}
