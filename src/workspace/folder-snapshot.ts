import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import path from 'node:path';
import { createBundledFileRule, isSkippedFolderName } from '../repository/bundled-file-rule.js';
import { type FolderEntry, scanTree } from '../runtime/scan-tree.js';

export type { FolderEntry };

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
 * Lists a skill folder without reading file contents (scan-tree.ts: links kept only when they stay
 * inside), leaving out what staging never copies, and computes the cheap manifest.
 */
export async function scanFolder(skillDir: string, options: ScanOptions = { skillFolder: true }): Promise<FolderScan> {
  const { entries, warnings } = await scanTree(skillDir, (name, relativeDir) => {
    if (!options.skillFolder) return undefined;
    if (skippedAnywhere.has(name)) return { skip: true };
    if (isSecretLookingName(name)) {
      const relative = relativeDir === '' ? name : `${relativeDir}/${name}`;
      return {
        skip: true,
        warning: `skipped "${relative}": secret-looking files are not staged (see defaultDeniedFileNames)`,
      };
    }
    if (relativeDir === '' && reservedTopLevel.has(name)) {
      return {
        skip: true,
        warning: `skipped "${name}" of the skill folder: the working copy links ${name}/ to the workspace's folder`,
      };
    }
    return undefined;
  });
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

export function combineDigests(entries: readonly FolderEntry[], fileDigests: ReadonlyMap<string, string>): string {
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
