import { createHash } from 'node:crypto';
import { statSync, utimesSync } from 'node:fs';
import { lstat, mkdir, readdir, realpath, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { validateOptions } from '../config/validate-options.js';
import type { SkillRepository } from '../repository/types.js';
import { removeTree } from '../runtime/remove-tree.js';
import type { WorkspaceRuntime } from '../runtime/runtime-types.js';
import { inSpan } from '../telemetry/in-span.js';
import { WorkspaceBaseUnsafeError, WorkspaceManagerClosedError } from './errors.js';
import { removeHostRecord, storeMetadata } from './host-metadata-record.js';
import type { ArtifactStore } from './outputs/artifact-store.js';
import { FilesystemArtifactStore } from './outputs/filesystem-artifact-store.js';
import { validateReadOnlyPaths } from './read-only-paths.js';
import type { StageMode } from './skill-stager.js';
import { Workspace } from './workspace.js';
import { toWorkspaceKey, type WorkspaceKey, workspaceKeyDigest, workspaceKeyId } from './workspace-key.js';
import { freshMetadata } from './workspace-metadata.js';
import { workspaceManagerOptionsSchema } from './workspace-options-schema.js';

/** Options of `createWorkspaceManager`: the runtime, repository, base folder, staging and expiry. */
export interface WorkspaceManagerOptions {
  runtime: WorkspaceRuntime;
  repository: SkillRepository;
  /**
   * Folder holding every session's `ws_<session>_<time>/`; default `<tmp>/skillbox-workspaces-<uid>`,
   * which must be a real folder owned by this user with mode 0700 (WorkspaceBaseUnsafeError otherwise).
   */
  baseDir?: string;
  /** `copy` (default): a private working copy. `link`: links to the source; only for runtimes that see host paths. */
  stageMode?: StageMode;
  /**
   * Workspaces untouched for longer than this are removed by `cleanupExpired()`, which `workspace()` also
   * runs now and then. Default 24 hours; `Infinity` keeps them.
   */
  ttlMs?: number;
  /** Where `save_as_artifacts` and `artifact://` inputs go; default a filesystem store in `<baseDir>/artifacts`. */
  artifacts?: ArtifactStore | false;
  /**
   * Host paths every command may read but not write, seen at the same path (sandbox: read-only
   * binds; local: visible anyway). Absolute, existing, not `/`, not inside or above `baseDir`.
   */
  readOnlyPaths?: readonly string[];
}

export const defaultWorkspaceTtlMs = 24 * 60 * 60 * 1000;

/** Longest readable session part of a workspace folder name. */
const maxSessionSegment = 40;

/**
 * Session ids become folder names: anything but letters, digits, `_` and `-` turns into `_`, and
 * long ids are cut. When that changed the id, a short hash of the real id is added, so `a/b` and
 * `a_b` never share a folder (metadata.json is writable by the sandboxed process and cannot be
 * trusted to tell them apart).
 */
export function sanitizeSessionId(sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, maxSessionSegment);
  if (safe === sessionId && safe !== '') return safe;
  return `${safe === '' ? 'anon' : safe}-${createHash('sha256').update(sessionId).digest('hex').slice(0, 10)}`;
}

/**
 * One workspace per session, created on first use and found again on disk after a restart (by its
 * folder name, with the host's record of what was staged; docs/workspaces.md). Expired workspaces
 * are removed by age of last use.
 */
export class WorkspaceManager {
  readonly runtime: WorkspaceRuntime;
  readonly repository: SkillRepository;
  readonly baseDir: string;
  readonly stageMode: StageMode;
  readonly ttlMs: number;
  readonly artifacts: ArtifactStore | undefined;
  /** Canonical host paths shown read-only to every command. */
  readonly readOnlyPaths: readonly string[];
  private readonly opened = new Map<string, Promise<Workspace>>();
  // Each opening's workspace once it is open, for the synchronous `holdsWork`.
  private readonly openedWorkspace = new WeakMap<Promise<Workspace>, Workspace>();
  private lastSweep = 0;
  /** The default base is in the shared temporary folder: it is checked before first use. */
  private readonly sharedParent: boolean;
  private baseReady: Promise<void> | undefined;
  /** Folders this manager made (not ones it found again on disk): what `close()` removes. */
  private readonly created = new Set<string>();
  private closing: Promise<void> | undefined;

  /**
   * Options already checked: by `createWorkspaceManager` for a caller's, or by the schema of the
   * agent or toolkit that makes a manager from its `runtime`. Folders are checked here, on disk.
   */
  constructor(options: WorkspaceManagerOptions) {
    const { runtime, repository } = options;
    const stageMode = options.stageMode ?? 'copy';
    const ttlMs = options.ttlMs ?? defaultWorkspaceTtlMs;
    this.runtime = runtime;
    this.repository = repository;
    this.sharedParent = options.baseDir === undefined;
    this.baseDir = path.resolve(options.baseDir ?? defaultBaseDir());
    this.readOnlyPaths = validateReadOnlyPaths('readOnlyPaths', options.readOnlyPaths, this.baseDir);
    this.stageMode = stageMode;
    this.ttlMs = ttlMs;
    this.artifacts =
      options.artifacts === false
        ? undefined
        : (options.artifacts ?? new FilesystemArtifactStore({ dir: path.join(this.baseDir, 'artifacts') }));
  }

  /**
   * The workspace of a session (a plain id) or of an app's user's session, created (with its layout
   * and metadata.json) when it does not exist. Distinct keys never share a workspace or artifacts.
   */
  async workspace(key: string | WorkspaceKey): Promise<Workspace> {
    this.refuseWhenClosed('workspace');
    const workspaceKey = toWorkspaceKey(key);
    const id = workspaceKeyId(workspaceKey);
    void this.sweepNowAndThen();
    let pending = this.opened.get(id);
    if (pending === undefined) {
      const opening = this.openOrCreate(workspaceKey);
      pending = opening;
      this.opened.set(id, opening);
      opening.then(
        (workspace) => this.openedWorkspace.set(opening, workspace),
        () => this.opened.delete(id),
      );
    }
    const workspace = await pending;
    // The folder may have been removed behind our back (another process's cleanup): start over.
    // Direct calls, here and in recordUse: every tool call passes this way (anchored-folder.ts says why).
    if (statSync(workspace.root, { throwIfNoEntry: false })?.isDirectory() !== true) {
      this.opened.delete(id);
      return this.workspace(workspaceKey);
    }
    await this.recordUse(workspace.root);
    return workspace;
  }

  /**
   * Kills the background processes of a session's workspace when this manager has it open (no
   * other can have started them); the workspace and its files stay. Opens nothing.
   */
  async stopProcesses(key: string | WorkspaceKey): Promise<void> {
    const live = await this.opened.get(workspaceKeyId(toWorkspaceKey(key)))?.catch(() => undefined);
    await live?.stopProcesses();
  }

  /**
   * True while this manager has the session's workspace open or opening and something runs there
   * (a command, a background process, a held turn): what expiry leaves alone, and what the MCP
   * HTTP server never ends to make room. Opens nothing.
   */
  holdsWork(key: string | WorkspaceKey): boolean {
    const pending = this.opened.get(workspaceKeyId(toWorkspaceKey(key)));
    if (pending === undefined) return false;
    const workspace = this.openedWorkspace.get(pending);
    // Still opening: a call is under way that will use it.
    return workspace === undefined || workspace.busy;
  }

  /** Removes the workspace of a session (or of an app's user's session); false when it had none. */
  async cleanup(key: string | WorkspaceKey): Promise<boolean> {
    this.refuseWhenClosed('cleanup');
    const workspaceKey = toWorkspaceKey(key);
    const id = workspaceKeyId(workspaceKey);
    return inSpan('workspace.cleanup', { 'workspace.session': workspaceKey.sessionId }, async () => {
      const live = await this.opened.get(id)?.catch(() => undefined);
      // A metadata write still under way would race the removal; a turn under way finishes first.
      await live?.exclusive(() => live.flushMetadata()).catch(() => undefined);
      await live?.stopProcesses();
      this.opened.delete(id);
      const roots = await this.findRoots(workspaceKey);
      for (const root of roots) await this.remove(root);
      return roots.length > 0;
    });
  }

  /**
   * Removes workspaces whose last use is older than the ttl; returns the session ids removed (the
   * folder name for one this process never opened). The time of last use is the host's own record,
   * kept outside every workspace: metadata.json is the sandboxed command's to rewrite, so it is
   * never read here (a 1 GB or unreadable one cannot stall the sweep, a date in the future cannot
   * keep a workspace forever). A workspace that cannot be removed does not stop the sweep.
   */
  async cleanupExpired(now: number = Date.now()): Promise<string[]> {
    this.refuseWhenClosed('cleanupExpired');
    if (this.ttlMs === Infinity) return [];
    return inSpan('workspace.cleanup', { 'workspace.expired': true }, async () => {
      const removed: string[] = [];
      const live = new Map<string, Workspace>();
      for (const pending of this.opened.values()) {
        const workspace = await pending.catch(() => undefined);
        if (workspace !== undefined) live.set(workspace.root, workspace);
      }
      for (const root of await this.allRoots()) {
        const lastUse = await this.lastUse(root, now);
        if (now - lastUse <= this.ttlMs) continue;
        const workspace = live.get(root);
        if (workspace?.busy) continue;
        if (workspace !== undefined) {
          await workspace.flushMetadata().catch(() => undefined);
          this.opened.delete(workspaceKeyId(workspace.key));
        }
        try {
          await this.remove(root);
          removed.push(workspace?.sessionId ?? path.basename(root));
        } catch {
          // Left for the next sweep; one stubborn folder must not orphan the others.
        }
      }
      return removed;
    });
  }

  /**
   * Ends this manager's work: stops the background processes of every workspace it has open, waits
   * for a turn under way, and removes the workspaces it created (with `keepWorkspaces`, leaves
   * them for a later manager to find again, as a resumable session needs). Workspaces it only
   * found again on disk stay. Without it those folders wait for a TTL sweep that only a long-lived
   * process reaches. Calling it again returns the same promise; every other method afterwards
   * throws WorkspaceManagerClosedError.
   */
  close(options: { keepWorkspaces?: boolean } = {}): Promise<void> {
    this.closing ??= inSpan('workspace.close', {}, async () => {
      const pending = [...this.opened.values()];
      this.opened.clear();
      for (const opening of pending) {
        const workspace = await opening.catch(() => undefined);
        if (workspace === undefined) continue;
        // A turn under way finishes first; its metadata write would race the removal.
        await workspace.exclusive(() => workspace.flushMetadata()).catch(() => undefined);
        await workspace.stopProcesses().catch(() => undefined);
      }
      if (options.keepWorkspaces === true) return;
      for (const root of [...this.created]) {
        // One folder that cannot be removed must not keep the others; the TTL sweep is the fallback.
        await this.remove(root).catch(() => undefined);
      }
    });
    return this.closing;
  }

  private refuseWhenClosed(method: string): void {
    if (this.closing !== undefined) throw new WorkspaceManagerClosedError(method);
  }

  private async sweepNowAndThen(): Promise<void> {
    const now = Date.now();
    if (this.ttlMs === Infinity || now - this.lastSweep < Math.min(this.ttlMs / 10, 10 * 60 * 1000)) return;
    this.lastSweep = now;
    await this.cleanupExpired(now).catch(() => undefined);
  }

  private ensureBase(): Promise<void> {
    this.baseReady ??= this.sharedParent
      ? ensurePrivateFolder(this.baseDir)
      : mkdir(this.baseDir, { recursive: true, mode: 0o700 }).then(() => undefined);
    const ready = this.baseReady;
    ready.catch(() => {
      if (this.baseReady === ready) this.baseReady = undefined;
    });
    return ready;
  }

  private async openOrCreate(key: WorkspaceKey): Promise<Workspace> {
    await this.ensureBase();
    const existing = (await this.findRoots(key))[0];
    if (existing !== undefined) {
      const workspace = new Workspace(key, existing, this.settings());
      await workspace.ensureLayout();
      return workspace;
    }
    return inSpan('workspace.create', { 'workspace.session': key.sessionId }, async (span) => {
      const base = await realpath(this.baseDir);
      let root: string;
      for (let stamp = Date.now(); ; stamp += 1) {
        root = path.join(base, `${workspaceFolderPrefix(key)}${stamp}`);
        try {
          await mkdir(root, { mode: 0o700 });
          break;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
      }
      span.setAttribute('workspace.path', root);
      try {
        const { copyError } = await storeMetadata(
          root,
          this.runtime.files(root),
          freshMetadata(key.sessionId, new Date()),
        );
        if (copyError !== undefined) throw copyError;
        const workspace = new Workspace(key, root, this.settings());
        await workspace.ensureLayout();
        await this.recordUse(root);
        this.created.add(root);
        return workspace;
      } catch (error) {
        await this.runtime
          .files(root)
          .remove('')
          .catch(() => undefined);
        await removeTree(root);
        await removeHostRecord(root).catch(() => undefined);
        throw error;
      }
    });
  }

  private settings() {
    return {
      runtime: this.runtime,
      repository: this.repository,
      stageMode: this.stageMode,
      artifacts: this.artifacts,
      readOnlyPaths: this.readOnlyPaths,
    };
  }

  /** Workspace folders of one key, newest first (there is normally one). The folder name alone decides. */
  private async findRoots(key: WorkspaceKey): Promise<string[]> {
    const prefix = workspaceFolderPrefix(key);
    const matches: Array<[number, string]> = [];
    for (const root of await this.allRoots()) {
      const name = path.basename(root);
      if (name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
        matches.push([Number(name.slice(prefix.length)), root]);
    }
    return matches.sort((a, b) => b[0] - a[0]).map(([, root]) => root);
  }

  /** Every workspace folder, by name: a folder whose command deleted its metadata.json is still one. */
  private async allRoots(): Promise<string[]> {
    const base = await realpath(this.baseDir).catch(() => undefined);
    if (base === undefined) return [];
    const entries = await readdir(base, { withFileTypes: true }).catch(() => []);
    return entries
      .filter((entry) => entry.isDirectory() && /^ws_.*_\d+$/.test(entry.name))
      .map((entry) => path.join(base, entry.name));
  }

  /** The host's record of last use: the modification time of `<base>/.last-use/<folder>`, outside every workspace. */
  private async recordUse(root: string): Promise<void> {
    const record = path.join(path.dirname(root), lastUseFolderName, path.basename(root));
    const now = new Date();
    try {
      utimesSync(record, now, now);
    } catch {
      await mkdir(path.dirname(record), { recursive: true, mode: 0o700 });
      await writeFile(record, '', { mode: 0o600 });
    }
  }

  /** Last use of a workspace: the host's record, else (a folder from an older version) the folder's own time, never later than now. */
  private async lastUse(root: string, now: number): Promise<number> {
    const recorded = await stat(path.join(path.dirname(root), lastUseFolderName, path.basename(root))).then(
      (stats) => stats.mtimeMs,
      () => undefined,
    );
    const fallback =
      recorded ??
      (await lstat(root).then(
        (stats) => stats.mtimeMs,
        () => now,
      ));
    return Math.min(fallback, now);
  }

  private async remove(root: string): Promise<void> {
    // Background processes end with their workspace (they are what could still write into it).
    await this.runtime.stopProcesses?.(root);
    // The runtime's copy first (for the host runtimes it is this very folder), then the host's folder.
    await this.runtime.files(root).remove('');
    await removeTree(root);
    await rm(path.join(path.dirname(root), lastUseFolderName, path.basename(root)), { force: true });
    await removeHostRecord(root);
    this.created.delete(root);
  }
}

/** Folder of the host's last-use records, beside the workspaces and outside each. */
const lastUseFolderName = '.last-use';

/**
 * `ws_<readable session>-<digest of the key>_`: the readable part is for people listing the folder;
 * the 128-bit digest of the escaped (app, user, session) triple is what keeps keys apart.
 */
export function workspaceFolderPrefix(key: WorkspaceKey): string {
  const readable = key.sessionId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, maxSessionSegment) || 'anon';
  return `ws_${readable}-${workspaceKeyDigest(key)}_`;
}

/** `<tmp>/skillbox-workspaces-<uid>`: one per user, so users never share (or pre-create) each other's. */
export function defaultBaseDir(): string {
  const owner = typeof process.getuid === 'function' ? String(process.getuid()) : os.userInfo().username;
  return path.join(os.tmpdir(), `skillbox-workspaces-${owner}`);
}

/**
 * Creates `folder` (0700) or accepts an existing one only when it is a real folder, owned by this
 * user, with mode 0700. In a shared temporary folder anyone can create the name first, as a link
 * to a folder of theirs or as a folder they can read; `lstat` sees the name itself, not a target.
 * Once it passes, nobody else can change what is inside, and the sticky temporary folder keeps
 * others from renaming it.
 */
export async function ensurePrivateFolder(folder: string): Promise<void> {
  try {
    await mkdir(folder, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const stats = await lstat(folder);
  if (stats.isSymbolicLink())
    throw new WorkspaceBaseUnsafeError(folder, 'it is a symbolic link, which anyone could have pointed elsewhere');
  if (!stats.isDirectory()) throw new WorkspaceBaseUnsafeError(folder, 'it is not a folder');
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined && stats.uid !== uid)
    throw new WorkspaceBaseUnsafeError(folder, `it is owned by uid ${stats.uid}, not by this user (uid ${uid})`);
  if ((stats.mode & 0o777) !== 0o700)
    throw new WorkspaceBaseUnsafeError(folder, `its mode is 0${(stats.mode & 0o777).toString(8)}, not 0700`);
}

/** The per-session workspaces (folders where skills are staged and commands run) on one runtime. */
export function createWorkspaceManager(options: WorkspaceManagerOptions): WorkspaceManager {
  validateOptions('createWorkspaceManager', workspaceManagerOptionsSchema, options);
  return new WorkspaceManager(options);
}
