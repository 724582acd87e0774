import { type FSWatcher, watch as watchFolder } from 'node:fs';
import { join, sep } from 'node:path';
import { isSkippedFolderName } from './bundled-file-rule.js';
import { compareNames } from './compare-names.js';
import { checkWatchArguments } from './fs-skill-repository-options-check.js';

/** What changed in the catalog between two scans, by skill name. */
export interface SkillChangeEvent {
  added: string[];
  removed: string[];
  /** Skills whose SKILL.md changed or whose winning folder moved. */
  changed: string[];
  /**
   * With the watch option `files`: skills (not listed above) where another file was added,
   * removed or edited, e.g. a script. Their catalog entry is the same, their files are not.
   */
  files?: string[];
}

/** Options of `FsSkillRepository.watch`: the debounce delay and what to call when a rescan fails. */
export interface SkillWatchOptions {
  /** Quiet time after the last file event before the repository re-scans (default 100 ms). */
  debounceMs?: number;
  /** Called when a re-scan fails (a strict repository that turned invalid); the previous skills stay. */
  onError?: (error: unknown) => void;
  /**
   * Also report edits to a skill's files other than SKILL.md, in the event's `files` (default
   * false: the catalog does not change with them). A server that lists skill files with digests
   * (MCP) needs them.
   */
  files?: boolean;
}

/** A running watch over the skill roots; `close()` stops it. */
export interface SkillWatcher {
  close(): void;
}

/** What a watch reads of a catalog's winner for a name: its version, where it is, and its name. */
export interface WatchedSkill {
  signature: string;
  indexed: { file: string; folder: string };
  parsed: { name: string };
}

/** The repository as a watch sees it (FsSkillRepository gives it its own state through these). */
export interface WatchedRepository {
  /** The resolved roots of the last scan: the folders watched. */
  roots(): readonly string[];
  /** Re-scans the roots and installs the new view. */
  refresh(): Promise<void>;
  /** The current view's winners by name, undefined before a view is built. */
  winners(): ReadonlyMap<string, WatchedSkill> | undefined;
  /** Settles once a view is built (at once when one is), whether or not building it failed. */
  viewReady(): Promise<void>;
}

/**
 * Watches the roots of the last scan (recursively) and re-scans after file events settle. The
 * listener hears catalog changes (skills added, removed or changed) and, with the `files`
 * option, edits to the skills' other files. Roots that did not exist at the last scan are not
 * watched.
 */
export function watchSkillRoots(
  source: WatchedRepository,
  listener: (event: SkillChangeEvent) => void,
  options: SkillWatchOptions = {},
): SkillWatcher {
  checkWatchArguments(listener, { ...options });
  const debounceMs = options.debounceMs ?? 100;
  const onError =
    options.onError ??
    ((error: unknown) =>
      process.emitWarning(`skill watch: re-scan failed: ${(error as Error).message ?? String(error)}`));
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  // A re-scan reports what changed since the view before it: after a lenient open() nobody may
  // have listed yet, so that view is built now (viewReady), ahead of the first re-scan.
  let queue: Promise<void> = source.viewReady();
  // Skills with an edited file other than SKILL.md since the last re-scan (the `files` option).
  let editedFiles = new Set<string>();

  const rescan = async (): Promise<void> => {
    const edited = editedFiles;
    editedFiles = new Set();
    const before = source.winners() ?? new Map<string, WatchedSkill>();
    try {
      await source.refresh();
    } catch (error) {
      if (!closed) onError(error);
      return;
    }
    const after = source.winners() ?? new Map<string, WatchedSkill>();
    const event: SkillChangeEvent = { added: [], removed: [], changed: [] };
    for (const [name, loaded] of after) {
      const previous = before.get(name);
      if (!previous) event.added.push(name);
      else if (previous.signature !== loaded.signature || previous.indexed.file !== loaded.indexed.file)
        event.changed.push(name);
    }
    for (const name of before.keys()) if (!after.has(name)) event.removed.push(name);
    if (options.files === true) {
      const reported = new Set([...event.added, ...event.changed]);
      event.files = [...edited].filter((name) => after.has(name) && !reported.has(name)).sort(compareNames);
    }
    const files = event.files?.length ?? 0;
    if (closed || event.added.length + event.removed.length + event.changed.length + files === 0) return;
    for (const names of [event.added, event.removed, event.changed]) names.sort(compareNames);
    listener(event);
  };
  /** The skill an edited path belongs to, unless it is that skill's SKILL.md (the re-scan sees those). */
  const noteEditedFile = (root: string, filename: string): void => {
    const changed = join(root, filename);
    let owner: WatchedSkill | undefined;
    for (const loaded of source.winners()?.values() ?? []) {
      const folder = loaded.indexed.folder;
      if (changed !== folder && !changed.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`)) continue;
      // A skill folder inside another skill's folder owns its own files.
      if (owner === undefined || folder.length > owner.indexed.folder.length) owner = loaded;
    }
    if (owner !== undefined && changed !== owner.indexed.file) editedFiles.add(owner.parsed.name);
  };
  const schedule = (root: string, filename: string | Buffer | null): void => {
    if (closed) return;
    const segments = filename === null ? [] : filename.toString().split(/[\\/]/);
    if (segments.some(isSkippedFolderName)) return;
    if (options.files === true && filename !== null) noteEditedFile(root, filename.toString());
    clearTimeout(timer);
    timer = setTimeout(() => {
      queue = queue.then(rescan);
    }, debounceMs);
  };
  const watchers: FSWatcher[] = [];
  const close = (): void => {
    closed = true;
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
  try {
    for (const root of source.roots()) {
      const watcher = watchFolder(root, { recursive: true }, (_event, filename) => schedule(root, filename));
      watcher.on('error', (error) => {
        if (!closed) onError(error);
      });
      watchers.push(watcher);
    }
  } catch (error) {
    close();
    throw error;
  }
  return { close };
}
