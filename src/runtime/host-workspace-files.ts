import { lstatSync, mkdirSync, renameSync, rmdirSync } from 'node:fs';
import { lstat, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { openFileInside, openFolderInside, readHead, withFolderInside } from './anchored-folder.js';
import { buildTree } from './build-tree.js';
import { WorkspacePathError } from './errors.js';
import { heldDeletedFiles } from './held-deleted-files.js';
import { newBuildPath } from './host-build-area.js';
import { hostFileEntries } from './host-file-entries.js';
import { isInside } from './is-inside.js';
import { measureTree } from './measure-tree.js';
import { removeTree } from './remove-tree.js';
import { scanTree } from './scan-tree.js';
import type {
  EntryInfo,
  ListedEntry,
  ListOptions,
  PlacedTree,
  PutOptions,
  PutResult,
  ResolvedPath,
  WorkspaceFiles,
  WorkspaceSizeLimits,
  WorkspaceUsage,
} from './workspace-files.js';

/**
 * The workspace files of a runtime whose commands see the host folder (`local`, `sandbox`): every
 * call works on `root` directly. A command may have changed anything below `root` since the last
 * call, so writes are built in the host build area and moved in through a folder opened and
 * checked first (anchored-folder.ts), and reads open what they read before checking where it is.
 */
export class HostWorkspaceFiles implements WorkspaceFiles {
  /** Real host path of the workspace folder, which nobody else controls. */
  readonly root: string;

  /**
   * `heldOpenBy` names the host pids of the sandboxes running in this workspace (`SandboxRuntime`
   * passes its own): what they hold open of the workspace after deleting it counts in `measure`.
   */
  constructor(
    root: string,
    private readonly options: { heldOpenBy?: () => number[] } = {},
  ) {
    this.root = root;
  }

  async ensureFolders(paths: readonly string[]): Promise<void> {
    // When every one is a real folder (the usual case) nothing else is needed. A few lstat calls
    // made directly: through the thread pool each cost more than the call (anchored-folder.ts).
    if (paths.every((folder) => lstatSync(this.absolute(folder), { throwIfNoEntry: false })?.isDirectory() === true))
      return;
    // Repairs go one by one, parents first, each through its parent opened and checked: whatever
    // stands in a folder's place (a file, a link to the host) is moved out of the workspace and removed.
    for (const folder of paths) {
      const { parent: parentPath, name } = splitPath(folder);
      await withFolderInside(this.root, parentPath, { create: true }, async (parent) => {
        const entry = parent.entry(name);
        const current = lstatSync(entry, { throwIfNoEntry: false });
        if (current?.isDirectory()) return;
        if (current !== undefined) {
          const removed = await newBuildPath(this.root);
          renameSync(entry, removed);
          await removeTree(removed);
        }
        mkdirSync(entry, { mode: 0o755 });
      });
    }
  }

  async makeFolder(folder: string, options: { exclusive?: boolean } = {}): Promise<boolean> {
    if (options.exclusive !== true) {
      const opened = await openFolderInside(this.root, folder, { create: true });
      await opened.close();
      return true;
    }
    const { parent: parentPath, name } = splitPath(folder);
    return withFolderInside(this.root, parentPath, { create: true }, async (parent) => {
      try {
        mkdirSync(parent.entry(name), { mode: 0o755 });
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw error;
      }
    });
  }

  async inspect(target: string): Promise<EntryInfo | undefined> {
    if (target === '') return entryInfo(lstatSync(this.root));
    const { parent: parentPath, name } = splitPath(target);
    try {
      return await withFolderInside(this.root, parentPath, { create: false }, (parent) =>
        entryInfo(lstatSync(parent.entry(name))),
      );
    } catch {
      return undefined;
    }
  }

  resolve(paths: readonly string[]): Promise<Array<ResolvedPath | undefined>> {
    return Promise.all(paths.map((target) => this.resolveOne(target)));
  }

  private async resolveOne(target: string): Promise<ResolvedPath | undefined> {
    const absolute = this.absolute(target);
    const real = await realpath(absolute).catch(() => undefined);
    if (real === undefined || !isInside(this.root, real)) {
      const exists = await lstat(absolute).then(
        () => true,
        () => false,
      );
      return exists ? { inside: false } : undefined;
    }
    const stats = await lstat(real).catch(() => undefined);
    if (stats === undefined) return undefined;
    return { inside: true, path: path.relative(this.root, real).split(path.sep).join('/'), entry: entryInfo(stats) };
  }

  async list(folder: string, options: ListOptions): Promise<{ entries: ListedEntry[]; truncated: boolean }> {
    const [resolved] = await this.resolve([folder]);
    if (resolved === undefined || !resolved.inside)
      throw new WorkspacePathError(
        folder,
        resolved === undefined ? 'it does not exist' : 'it leads out of the workspace',
      );
    const entries: ListedEntry[] = [];
    let truncated = false;
    const walk = async (directory: string, relativeDir: string, depth: number): Promise<void> => {
      if (depth > options.maxDepth) return;
      const names = await readdir(directory, { withFileTypes: true }).catch(() => []);
      names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of names) {
        if (truncated) return;
        if (entries.length >= options.maxEntries) {
          truncated = true;
          return;
        }
        const relative = relativeDir === '' ? entry.name : `${relativeDir}/${entry.name}`;
        const kind = entry.isDirectory()
          ? 'directory'
          : entry.isFile()
            ? 'file'
            : entry.isSymbolicLink()
              ? 'link'
              : 'other';
        entries.push({ path: relative, kind });
        if (kind === 'directory') await walk(path.join(directory, entry.name), relative, depth + 1);
      }
    };
    await walk(this.absolute(resolved.path), '', 1);
    return { entries, truncated };
  }

  async read(target: string, maxBytes: number): Promise<{ data: Buffer; sizeBytes: number }> {
    const handle = await openFileInside(this.root, this.absolute(target));
    try {
      return await readHead(handle, maxBytes);
    } finally {
      await handle.close();
    }
  }

  async put(target: string, tree: PlacedTree, options: PutOptions = {}): Promise<PutResult> {
    if (target === '') throw new WorkspacePathError(target, 'the workspace root itself cannot be replaced');
    const { parent: parentPath, name } = splitPath(target);
    const temporary = await newBuildPath(this.root);
    let retired: string | undefined;
    let placed = false;
    try {
      const digests = await buildTree(temporary, tree, options.digests === true);
      const { ino } = lstatSync(temporary);
      await withFolderInside(this.root, parentPath, { create: true }, async (parent) => {
        const destination = parent.entry(name);
        const existing = lstatSync(destination, { throwIfNoEntry: false });
        if (existing?.isDirectory() && options.keepFolder === true)
          throw new WorkspacePathError(target, 'a folder stands there and is kept');
        // A folder is moved out first (rename cannot replace a non-empty one, nor a file by a folder).
        if (existing !== undefined && (existing.isDirectory() || tree.kind === 'directory')) {
          retired = await newBuildPath(this.root);
          renameSync(destination, retired);
        }
        // rename replaces a file or a link itself, never what a link points to.
        renameSync(temporary, destination);
        placed = true;
      });
      return { inode: ino, ...(digests === undefined ? {} : { digests }) };
    } finally {
      // Once moved in, nothing is left at the temporary path to remove.
      if (!placed) await removeTree(temporary);
      if (retired !== undefined) await removeTree(retired);
    }
  }

  async copy(from: string, to: string): Promise<void> {
    const [resolved] = await this.resolve([from]);
    if (resolved === undefined || !resolved.inside)
      throw new WorkspacePathError(from, 'no such file or folder inside the workspace');
    const source = this.absolute(resolved.path);
    // Every file is opened without following its last name and checked, once open, to lie inside
    // the workspace: a command's link swapped in after the scan cannot make the host read elsewhere.
    const within = this.root;
    if (resolved.entry.kind === 'file') {
      await this.put(to, {
        kind: 'file',
        mode: (resolved.entry.mode & 0o777) | 0o600,
        content: { hostFile: source, within },
      });
      return;
    }
    if (resolved.entry.kind !== 'directory') throw new WorkspacePathError(from, 'it is neither a file nor a folder');
    const scan = await scanTree(source);
    const entries = hostFileEntries(source, scan.entries, within);
    await this.put(to, { kind: 'directory', mode: 0o755, entries });
  }

  async remove(target: string): Promise<void> {
    if (target === '') return removeTree(this.root);
    const { parent: parentPath, name } = splitPath(target);
    await withFolderInside(this.root, parentPath, { create: false }, async (parent) => {
      const removed = await newBuildPath(this.root);
      try {
        renameSync(parent.entry(name), removed);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      await removeTree(removed);
    }).catch((error: unknown) => {
      // A parent that is gone leaves nothing to remove.
      if (error instanceof WorkspacePathError && /does not exist/.test(error.message)) return;
      throw error;
    });
  }

  async removeEmptyFolder(target: string): Promise<boolean> {
    if (target === '') return false;
    const { parent: parentPath, name } = splitPath(target);
    try {
      // rmdir removes only an empty folder and never follows a link in the last name.
      return await withFolderInside(this.root, parentPath, { create: false }, (parent) => {
        rmdirSync(parent.entry(name));
        return true;
      });
    } catch {
      return false;
    }
  }

  async measure(limits: WorkspaceSizeLimits): Promise<WorkspaceUsage> {
    const usage = await measureTree(this.root, limits);
    const sandboxes = this.options.heldOpenBy?.() ?? [];
    if (usage.exceeded !== undefined || sandboxes.length === 0) return usage;
    // A file its command deleted while holding it open has no name for the walk to find, yet
    // takes the same disk (held-deleted-files.ts). Its device is the workspace's: nothing a
    // command can write elsewhere is on it (/tmp is a tmpfs of the sandbox's own).
    let device: number;
    try {
      device = (await lstat(this.root)).dev;
    } catch {
      return usage;
    }
    const held = heldDeletedFiles(sandboxes, device);
    usage.bytes += held.bytes;
    usage.files += held.files;
    if (usage.bytes > limits.maxBytes) usage.exceeded = 'disk';
    else if (usage.files > limits.maxFiles) usage.exceeded = 'files';
    return usage;
  }

  private absolute(relative: string): string {
    return relative === '' ? this.root : path.join(this.root, ...checkedParts(relative));
  }
}

/** The parts of a workspace-relative path, refused when one could climb or is not a plain name. */
export function checkedParts(relative: string): string[] {
  const parts = relative.split('/');
  if (
    typeof relative !== 'string' ||
    parts.some((part) => part === '' || part === '.' || part === '..' || part.includes('\0'))
  )
    throw new WorkspacePathError(
      String(relative),
      'expected a workspace-relative path without empty, "." or ".." parts',
    );
  return parts;
}

function splitPath(relative: string): { parent: string; name: string } {
  checkedParts(relative);
  const parent = path.posix.dirname(relative);
  return { parent: parent === '.' ? '' : parent, name: path.posix.basename(relative) };
}

function entryInfo(stats: import('node:fs').Stats): EntryInfo {
  return {
    kind: stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : stats.isSymbolicLink() ? 'link' : 'other',
    inode: stats.ino,
    sizeBytes: stats.size,
    mtimeMs: stats.mtimeMs,
    ctimeMs: stats.ctimeMs,
    mode: stats.mode & 0o7777,
  };
}
