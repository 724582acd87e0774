import { createHash } from 'node:crypto';
import { bundledFileRuleOf, isSkippedFolderName } from '../repository/bundled-file-rule.js';
import { type FolderEntry, scanTree } from '../runtime/scan-tree.js';

export type { FolderEntry };

export interface FolderScan {
  /** The folder's real path when the scan began: what the entries are relative to. */
  root: string;
  entries: FolderEntry[];
  /**
   * sha256 over every entry's path, mode, link target, and each file's size, modification and
   * status-change times and inode: cheap (no file is read), and it is the whole change check.
   */
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
const secretRule = bundledFileRuleOf();
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
  const { root, entries, warnings } = await scanTree(skillDir, (name, relativeDir) => {
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
        ? `f\0${entry.path}\0${entry.size}\0${entry.mtimeMs}\0${entry.ctimeMs}\0${entry.ino}\0${entry.mode}\n`
        : entry.kind === 'link'
          ? `l\0${entry.path}\0${entry.target}\n`
          : `d\0${entry.path}\0${entry.mode}\n`,
    );
  }
  return { root, entries, manifest: hash.digest('hex'), warnings };
}

/** sha256 over paths and contents, for skills defined in code, whose files come from the repository as buffers. */
export function digestFiles(files: ReadonlyArray<{ path: string; data: Uint8Array }>): string {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`file\0${file.path}\0`);
    hash.update(file.data);
    hash.update('\0');
  }
  return hash.digest('hex');
}
