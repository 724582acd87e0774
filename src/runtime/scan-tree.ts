import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { CallSlices } from './call-slices.js';
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
  /** The folder's real path when the scan began: what the entries are relative to. */
  root: string;
  entries: FolderEntry[];
  warnings: string[];
}

/**
 * Lists a folder without reading file contents, parents before children, names sorted. Links are
 * kept only when they resolve inside the folder (re-created as relative links in a copy); a link
 * that leaves it, or dangles, is skipped with a warning, so a copy never takes host files along.
 * Sockets, FIFOs and devices are left out. `filter` sees each name with its parent's relative path.
 * `slices` sets how long the scan runs before it lets other work on the event loop run.
 */
export async function scanTree(
  folder: string,
  filter: (name: string, relativeDir: string) => ScanVerdict = () => undefined,
  slices: CallSlices = new CallSlices(),
): Promise<TreeScan> {
  const root = await realpath(folder);
  // Synchronous calls in slices (call-slices.ts says why), depth first: parents come before their
  // children and names in sorted order, as a copy needs them.
  const entries: FolderEntry[] = [];
  const warnings: string[] = [];
  async function walk(relativeDir: string): Promise<void> {
    const names = readdirSync(path.join(root, relativeDir)).sort();
    for (const name of names) {
      if (slices.due()) await slices.yield();
      const verdict = filter(name, relativeDir);
      if (verdict !== undefined) {
        if (verdict.warning !== undefined) warnings.push(verdict.warning);
        continue;
      }
      await visit(relativeDir === '' ? name : `${relativeDir}/${name}`);
    }
  }
  async function visit(relative: string): Promise<void> {
    if (slices.due()) await slices.yield();
    const absolute = path.join(root, relative);
    const stats = lstatSync(absolute);
    if (stats.isSymbolicLink()) {
      let resolved: string | undefined;
      try {
        resolved = realpathSync.native(absolute);
      } catch {
        resolved = undefined;
      }
      if (resolved === undefined || !isInside(root, resolved)) {
        warnings.push(
          `skipped link "${relative}": it ${resolved === undefined ? 'dangles' : 'leads out of the skill folder'}`,
        );
        return;
      }
      const target = path.relative(path.dirname(absolute), resolved) || '.';
      entries.push({ kind: 'link', path: relative, target: target.split(path.sep).join('/') });
      return;
    }
    if (stats.isDirectory()) {
      entries.push({ kind: 'directory', path: relative, mode: stats.mode & 0o777 });
      await walk(relative);
      return;
    }
    if (stats.isFile())
      entries.push({
        kind: 'file',
        path: relative,
        mode: stats.mode & 0o777,
        size: stats.size,
        mtimeMs: stats.mtimeMs,
        ctimeMs: stats.ctimeMs,
        ino: stats.ino,
      });
  }
  await walk('');
  return { root, entries, warnings };
}
