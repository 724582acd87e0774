import { createHash } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, readdir, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import { createBundledFileRule, isSkippedFolderName } from '../repository/bundled-file-rule.js';
import { isInside } from './workspace-paths.js';

/** One entry of a skill folder, as staging copies it. */
export type FolderEntry =
  | { kind: 'directory'; path: string; mode: number }
  | { kind: 'file'; path: string; mode: number; size: number; mtimeMs: number }
  /** A link that stays inside the skill; `target` is relative to the link's own folder. */
  | { kind: 'link'; path: string; target: string };

export interface FolderScan {
  entries: FolderEntry[];
  /** sha256 over every entry's path, size, modification time and mode: cheap, no file is read. */
  manifest: string;
  warnings: string[];
}

/**
 * Names never copied from a skill folder. `out`, `work` and `inputs` at the top are replaced by links
 * to the workspace folders; `.git`, `.venv` and `__pycache__` are history, a host-bound virtual
 * environment (it holds absolute paths) and caches.
 */
const reservedTopLevel = new Set(['out', 'work', 'inputs']);
const skippedAnywhere = new Set(['.git', '.venv', '__pycache__']);
/**
 * Secret-looking names (`.env`, private keys, credential files) are not copied either: the
 * repository refuses to serve them to the model, and a script in the sandbox must not get them by
 * the back door. `node_modules` is copied, unlike in listings, because a script may need it.
 */
const secretRule = createBundledFileRule();
function isSecretLookingName(name: string): boolean {
  return !isSkippedFolderName(name) && secretRule.excludes(name);
}

export interface ScanOptions {
  /** Skip the working copy's reserved names and the caches (`.git`, `.venv`, `__pycache__`); true for skills. */
  skillFolder: boolean;
}

/**
 * Lists a folder without reading file contents. Links are kept only when they resolve inside the
 * folder (re-created as relative links in the copy); a link that leaves it, or dangles, is skipped
 * with a warning, so staging never copies host files the author did not ship.
 */
export async function scanFolder(skillDir: string, options: ScanOptions = { skillFolder: true }): Promise<FolderScan> {
  const root = await realpath(skillDir);
  interface Visited {
    entries: FolderEntry[];
    warnings: string[];
  }
  // Every entry of a folder is looked at concurrently (the disk or cache answers several at once);
  // results are put back in sorted order, so entries and warnings do not depend on timing.
  async function walk(relativeDir: string): Promise<Visited> {
    const names = (await readdir(path.join(root, relativeDir))).sort();
    const visited = await Promise.all(
      names.map(async (name): Promise<Visited> => {
        if (options.skillFolder && skippedAnywhere.has(name)) return { entries: [], warnings: [] };
        if (options.skillFolder && isSecretLookingName(name)) {
          const relative = relativeDir === '' ? name : `${relativeDir}/${name}`;
          return { entries: [], warnings: [`skipped "${relative}": secret-looking files are not staged (see defaultDeniedFileNames)`] };
        }
        if (options.skillFolder && relativeDir === '' && reservedTopLevel.has(name)) {
          return { entries: [], warnings: [`skipped "${name}" of the skill folder: the working copy links ${name}/ to the workspace's folder`] };
        }
        return visit(relativeDir === '' ? name : `${relativeDir}/${name}`);
      }),
    );
    return { entries: visited.flatMap((result) => result.entries), warnings: visited.flatMap((result) => result.warnings) };
  }
  async function visit(relative: string): Promise<Visited> {
    const absolute = path.join(root, relative);
    const stats = await lstat(absolute);
    if (stats.isSymbolicLink()) {
      const resolved = await realpath(absolute).catch(() => undefined);
      if (resolved === undefined || !isInside(root, resolved)) {
        return { entries: [], warnings: [`skipped link "${relative}": it ${resolved === undefined ? 'dangles' : 'leads out of the skill folder'}`] };
      }
      const target = path.relative(path.dirname(absolute), resolved) || '.';
      return { entries: [{ kind: 'link', path: relative, target: target.split(path.sep).join('/') }], warnings: [] };
    }
    if (stats.isDirectory()) {
      const inside = await walk(relative);
      return { entries: [{ kind: 'directory', path: relative, mode: stats.mode & 0o777 }, ...inside.entries], warnings: inside.warnings };
    }
    if (stats.isFile()) return { entries: [{ kind: 'file', path: relative, mode: stats.mode & 0o777, size: stats.size, mtimeMs: stats.mtimeMs }], warnings: [] };
    // Sockets, FIFOs and devices are not skill content.
    return { entries: [], warnings: [] };
  }
  const { entries, warnings } = await walk('');
  const hash = createHash('sha256');
  for (const entry of entries) {
    hash.update(entry.kind === 'file' ? `f\0${entry.path}\0${entry.size}\0${entry.mtimeMs}\0${entry.mode}\n` : entry.kind === 'link' ? `l\0${entry.path}\0${entry.target}\n` : `d\0${entry.path}\0${entry.mode}\n`);
  }
  return { entries, manifest: hash.digest('hex'), warnings };
}

/** sha256 over the entries' paths and file contents (streamed), independent of times and modes. */
export async function digestFolder(skillDir: string, entries: readonly FolderEntry[]): Promise<string> {
  const root = await realpath(skillDir);
  const hash = createHash('sha256');
  for (const entry of entries) {
    if (entry.kind === 'directory') continue;
    hash.update(`${entry.kind}\0${entry.path}\0`);
    if (entry.kind === 'link') {
      hash.update(entry.target);
    } else {
      // Large chunks: the default 64 KiB stream chunks make hashing a big skill several times slower.
      for await (const chunk of createReadStream(path.join(root, entry.path), { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
    }
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The same digest for skills defined in code, whose files come from the repository as buffers. */
export function digestFiles(files: ReadonlyArray<{ path: string; data: Uint8Array }>): string {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`file\0${file.path}\0`);
    hash.update(file.data);
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Files copied at once: copies wait on the disk, so a few in flight hide most of the latency. */
const copyConcurrency = 8;

/** Re-creates scanned entries under `destination` (which exists); files copy-on-write where possible. */
export async function copyScannedEntries(source: string, entries: readonly FolderEntry[], destination: string): Promise<void> {
  const files: Array<Extract<FolderEntry, { kind: 'file' }>> = [];
  // Folders and links first, in scan order (parents before children), then the files in parallel.
  for (const entry of entries) {
    const target = path.join(destination, ...entry.path.split('/'));
    if (entry.kind === 'directory') await mkdir(target, { mode: entry.mode | 0o700 });
    else if (entry.kind === 'link') await symlink(entry.target, target);
    else files.push(entry);
  }
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const entry = files[next++] as Extract<FolderEntry, { kind: 'file' }>;
      const target = path.join(destination, ...entry.path.split('/'));
      await copyFile(path.join(source, ...entry.path.split('/')), target, constants.COPYFILE_FICLONE);
      // The copy belongs to the session, which may change it.
      await chmod(target, entry.mode | 0o600);
    }
  };
  await Promise.all(Array.from({ length: Math.min(copyConcurrency, files.length) }, worker));
}
