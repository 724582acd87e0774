import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, open, readdir, realpath, symlink } from 'node:fs/promises';
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
          return {
            entries: [],
            warnings: [`skipped "${relative}": secret-looking files are not staged (see defaultDeniedFileNames)`],
          };
        }
        if (options.skillFolder && relativeDir === '' && reservedTopLevel.has(name)) {
          return {
            entries: [],
            warnings: [
              `skipped "${name}" of the skill folder: the working copy links ${name}/ to the workspace's folder`,
            ],
          };
        }
        return visit(relativeDir === '' ? name : `${relativeDir}/${name}`);
      }),
    );
    return {
      entries: visited.flatMap((result) => result.entries),
      warnings: visited.flatMap((result) => result.warnings),
    };
  }
  async function visit(relative: string): Promise<Visited> {
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
        entries: [{ kind: 'file', path: relative, mode: stats.mode & 0o777, size: stats.size, mtimeMs: stats.mtimeMs }],
        warnings: [],
      };
    // Sockets, FIFOs and devices are not skill content.
    return { entries: [], warnings: [] };
  }
  const { entries, warnings } = await walk('');
  const hash = createHash('sha256');
  for (const entry of entries) {
    hash.update(
      entry.kind === 'file'
        ? `f\0${entry.path}\0${entry.size}\0${entry.mtimeMs}\0${entry.mode}\n`
        : entry.kind === 'link'
          ? `l\0${entry.path}\0${entry.target}\n`
          : `d\0${entry.path}\0${entry.mode}\n`,
    );
  }
  return { entries, manifest: hash.digest('hex'), warnings };
}

/**
 * sha256 over the entries' paths and each file's own sha256, independent of times and modes. Files
 * are hashed separately (several read at once) and combined in entry order, so the digest does not
 * depend on timing and can be computed while copying (`copyAndDigest`).
 */
export async function digestFolder(skillDir: string, entries: readonly FolderEntry[]): Promise<string> {
  const root = await realpath(skillDir);
  const fileDigests = new Map<string, string>();
  await forEachFile(entries, async (entry, buffer) => {
    fileDigests.set(entry.path, await hashFile(path.join(root, ...entry.path.split('/')), buffer));
  });
  return combineDigests(entries, fileDigests);
}

/**
 * Copies the scanned entries to `destination` (which exists) and returns `digestFolder`'s digest,
 * reading each file once: the first staging of a skill used to copy and then read everything again
 * to hash it, which cost several times a plain `cp -r`.
 */
export async function copyAndDigest(
  source: string,
  entries: readonly FolderEntry[],
  destination: string,
): Promise<string> {
  await createFoldersAndLinks(entries, destination);
  const fileDigests = new Map<string, string>();
  await forEachFile(entries, async (entry, buffer) => {
    const relative = entry.path.split('/');
    fileDigests.set(
      entry.path,
      await copyFileHashing(
        path.join(source, ...relative),
        path.join(destination, ...relative),
        entry.mode | 0o600,
        buffer,
      ),
    );
  });
  return combineDigests(entries, fileDigests);
}

function combineDigests(entries: readonly FolderEntry[], fileDigests: ReadonlyMap<string, string>): string {
  const hash = createHash('sha256');
  for (const entry of entries) {
    if (entry.kind === 'directory') continue;
    hash.update(
      `${entry.kind}\0${entry.path}\0${entry.kind === 'link' ? entry.target : fileDigests.get(entry.path)}\0`,
    );
  }
  return hash.digest('hex');
}

/** Bytes read at a time; one buffer per worker, reused for every file it handles. */
const chunkBytes = 1024 * 1024;

async function hashFile(file: string, buffer: Buffer): Promise<string> {
  const hash = createHash('sha256');
  const handle = await open(file, constants.O_RDONLY);
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

async function copyFileHashing(from: string, to: string, mode: number, buffer: Buffer): Promise<string> {
  const hash = createHash('sha256');
  const input = await open(from, constants.O_RDONLY);
  try {
    // O_EXCL: the destination is new; a name that exists already (a link) is never written through.
    const output = await open(
      to,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      for (;;) {
        const { bytesRead } = await input.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        const chunk = buffer.subarray(0, bytesRead);
        const written = output.write(chunk, 0, bytesRead);
        hash.update(chunk);
        await written;
      }
      // The mode is set explicitly: the umask would strip bits from the one given to open().
      await output.chmod(mode);
    } finally {
      await output.close();
    }
  } finally {
    await input.close();
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

/** Files copied or hashed at once: reads wait on the disk, so a few in flight hide most of the latency. */
const copyConcurrency = 8;

async function forEachFile(
  entries: readonly FolderEntry[],
  work: (entry: Extract<FolderEntry, { kind: 'file' }>, buffer: Buffer) => Promise<void>,
): Promise<void> {
  const files = entries.filter((entry): entry is Extract<FolderEntry, { kind: 'file' }> => entry.kind === 'file');
  let next = 0;
  const worker = async (): Promise<void> => {
    const buffer = Buffer.allocUnsafe(chunkBytes);
    while (next < files.length) await work(files[next++] as Extract<FolderEntry, { kind: 'file' }>, buffer);
  };
  await Promise.all(Array.from({ length: Math.min(copyConcurrency, files.length) }, worker));
}

/** Folders and links, in scan order (parents before children). */
async function createFoldersAndLinks(entries: readonly FolderEntry[], destination: string): Promise<void> {
  for (const entry of entries) {
    const target = path.join(destination, ...entry.path.split('/'));
    if (entry.kind === 'directory') await mkdir(target, { mode: entry.mode | 0o700 });
    else if (entry.kind === 'link') await symlink(entry.target, target);
  }
}

/** Re-creates scanned entries under `destination` (which exists); files copy-on-write where possible. */
export async function copyScannedEntries(
  source: string,
  entries: readonly FolderEntry[],
  destination: string,
): Promise<void> {
  await createFoldersAndLinks(entries, destination);
  await forEachFile(entries, async (entry) => {
    const target = path.join(destination, ...entry.path.split('/'));
    await copyFile(path.join(source, ...entry.path.split('/')), target, constants.COPYFILE_FICLONE);
    // The copy belongs to the session, which may change it.
    await chmod(target, entry.mode | 0o600);
  });
}
