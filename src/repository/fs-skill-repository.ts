import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { SkillParseError } from '../format/errors.js';
import { parseSkillMarkdownDeferringBody } from '../format/parse-skill-deferring-body.js';
import type { ParsedSkill } from '../format/types.js';
import { type BundledFileRule, bundledFileRuleOf } from './bundled-file-rule.js';
import { normalizeBundledPath } from './bundled-path.js';
import { isDocumentPath, isSkillFilePath } from './document-files.js';
import { SkillFileReadError, SkillNotFoundError, SkillPathError, StrictRepositoryError } from './errors.js';
import {
  buildCatalogView,
  type CacheEntry,
  type CatalogView,
  type IndexedFolder,
  type LoadOutcome,
  type ParsedSkillFolder,
  type ScanIndex,
  sameEntries,
  sameSummaries,
} from './fs-skill-catalog-view.js';
import type { FsSkillRepositoryOptions } from './fs-skill-repository-options.js';
import { checkFsSkillRepositoryOptions } from './fs-skill-repository-options-check.js';
import { type SkillChangeEvent, type SkillWatcher, type SkillWatchOptions, watchSkillRoots } from './fs-skill-watch.js';
import { listSkillFiles, type SkillFileListing } from './list-skill-files.js';
import type { LockedSkillCheck } from './locked-skill-check.js';
import { bundledFileError, defaultMaxReadableFileBytes, readBundledFile } from './read-bundled-file.js';
import { readSkillFiles, type SkillFileToRead } from './read-skill-files.js';
import { isWithin } from './resolve-link.js';
import { type RootEntry, resolveSkillRoots } from './resolve-skill-roots.js';
import { scanSkillRoot } from './scan-skill-root.js';
import { folderMovedReason, readErrorReason, reasonOf, withSafeName } from './skill-load-outcome.js';
import { splitSkillsRootList, standardSkillRoots } from './standard-roots.js';
import type { RepositoryReport, Skill, SkillRepository, SkillSummary } from './types.js';
import type { UrlRootOptions } from './url-root.js';
import { defaultSkillsCacheDir } from './url-root-cache-dir.js';

function noop(): void {}

function noCachedSignature(): undefined {
  return undefined;
}

/**
 * Waits before each read of a SKILL.md for `get()` after the first, which found a version other
 * than the one listed: a writer replacing the file in quick steps gets time to finish.
 */
const completionRetryDelaysMs = [0, 10, 50, 200];

/**
 * Skills in folders on disk. Roots are scanned in order, recursively; the first skill of a name
 * wins. Parsed SKILL.md files are cached by size, modification and status-change times and
 * inode, so `list()` costs one `stat` per skill once warm and picks up edits without a re-scan;
 * added and removed folders are seen after `refresh()` or through `watch()`.
 */
export class FsSkillRepository implements SkillRepository {
  readonly #options: FsSkillRepositoryOptions;
  readonly #rootEntries: RootEntry[];
  readonly #cwd: string;
  readonly #urlRoots: UrlRootOptions;
  readonly #bounds: {
    maxDepth: number;
    maxEntries: number;
    maxFilesPerSkill: number;
    maxSkillFileBytes: number;
    maxReadableFileBytes: number;
  };
  readonly #fileRule: BundledFileRule;
  /** Set by open() for `locked`: the lockfile code is loaded only by repositories that use it. */
  #lockCheck: LockedSkillCheck | undefined;
  readonly #cache = new Map<string, CacheEntry>();
  #index: ScanIndex = { roots: [], folders: [], skipped: [], warnings: [], problems: [] };
  #view: CatalogView | undefined;
  /** The view of the first `list()`, `get()` or `report()` after a lenient open(), while it is built (shared). */
  #firstView: Promise<CatalogView> | undefined;
  #generation = 1;
  /** The scan warnings already handed to `onWarning`. */
  #told = new Set<string>();

  /** Use `FsSkillRepository.open()`: scanning is asynchronous and a strict repository must fail there. */
  private constructor(options: FsSkillRepositoryOptions) {
    this.#options = options;
    this.#cwd = options.cwd ?? process.cwd();
    this.#bounds = {
      maxDepth: options.maxDepth ?? 12,
      maxEntries: options.maxEntries ?? 250_000,
      maxFilesPerSkill: options.maxFilesPerSkill ?? 10_000,
      maxSkillFileBytes: options.maxSkillFileBytes ?? 8 * 1024 * 1024,
      maxReadableFileBytes: options.maxReadableFileBytes ?? defaultMaxReadableFileBytes,
    };
    this.#fileRule = bundledFileRuleOf(options.deniedFileNames);
    this.#urlRoots = {
      ...options.urlRoots,
      cacheDir:
        options.urlRoots?.cacheDir ??
        defaultSkillsCacheDir({
          cwd: this.#cwd,
          ...(options.env ? { env: options.env } : {}),
          ...(options.home ? { home: options.home } : {}),
        }),
    };
    if (options.roots === undefined) {
      const environment = options.env ?? process.env;
      const fromEnvironment = splitSkillsRootList(environment.SKILLS_ROOT ?? '').length;
      this.#rootEntries = standardSkillRoots({
        cwd: this.#cwd,
        env: environment,
        ...(options.home ? { home: options.home } : {}),
      }).map((root, index) => ({ root, explicit: index < fromEnvironment }));
    } else {
      this.#rootEntries = options.roots.map((root) => ({ root, explicit: true }));
    }
  }

  /** Scans the roots and returns the repository; throws StrictRepositoryError in strict mode. */
  static async open(options: FsSkillRepositoryOptions = {}): Promise<FsSkillRepository> {
    await checkFsSkillRepositoryOptions(options);
    const repository = new FsSkillRepository(options);
    // The URL root code (downloads, archives) and the lockfile code are loaded only when asked
    // for: a repository of local folders never runs them. Options of URL roots are checked
    // here, by that code, before any root is read.
    if (options.urlRoots !== undefined) (await import('./url-root.js')).checkUrlRootOptions(repository.#urlRoots);
    if (options.locked === true)
      repository.#lockCheck = new (await import('./locked-skill-check.js')).LockedSkillCheck();
    // A lenient repository reads its SKILL.md files when first asked (list, get, report), not
    // here: open() and a list() right after it read each file once, where reading here made
    // that list() stat every file again, a tenth of a cold listing. A strict one must fail here.
    if (options.strict === true) await repository.refresh();
    else {
      repository.#index = await repository.#scan();
      repository.#tellWarnings(repository.#index);
    }
    return repository;
  }

  /**
   * What was wrong, at the last scan, with the roots named by the caller (`roots`, or the
   * `SKILLS_ROOT` entries): missing, not a folder, a URL that could not be fetched. Missing standard
   * roots are not problems. The same lines are in `report().warnings`.
   */
  rootProblems(): string[] {
    return [...this.#index.problems];
  }

  /** Hands the scan's warnings not told before to `onWarning` (default: process.emitWarning). */
  #tellWarnings(index: ScanIndex): void {
    const tell =
      this.#options.onWarning ??
      ((warning: string) => process.emitWarning(warning, { type: 'SkillboxWarning', code: 'SKILLBOX_SCAN' }));
    const current = new Set(index.warnings);
    for (const warning of current) if (!this.#told.has(warning)) tell(warning);
    // A problem that went away and comes back is told again.
    this.#told = current;
  }

  /** The resolved root folders of the last scan, in priority order. */
  roots(): string[] {
    return [...this.#index.roots];
  }

  async refresh(): Promise<void> {
    const index = await this.#scan();
    const view = await this.#buildView(index);
    if (this.#options.strict) {
      const problems = [
        ...index.problems,
        ...view.skipped.map((skipped) => `${skipped.path}: ${skipped.reason}`),
        ...view.shadowed.map(
          (shadowed) =>
            `duplicate skill name "${shadowed.name}" at ${shadowed.path} (first defined at ${shadowed.winner})`,
        ),
      ];
      // The previous index stays in place, so a failed refresh changes nothing.
      if (problems.length > 0) throw new StrictRepositoryError(problems);
    }
    this.#index = index;
    this.#tellWarnings(index);
    this.#install(view);
    const live = new Set(index.folders.map((folder) => folder.file));
    for (const file of this.#cache.keys()) if (!live.has(file)) this.#cache.delete(file);
  }

  /** Finds the skill folders under the roots; reads no SKILL.md. */
  async #scan(): Promise<ScanIndex> {
    const resolved = await resolveSkillRoots(this.#rootEntries, this.#cwd, this.#urlRoots);
    const scans = await Promise.all(
      resolved.roots.map((root) =>
        scanSkillRoot(root, {
          maxDepth: this.#bounds.maxDepth,
          maxEntries: this.#bounds.maxEntries,
          nested: this.#options.nested === true,
          siblingRoots: resolved.roots,
        }),
      ),
    );
    // A root the caller named that holds no skill is most likely the wrong folder (a typo'd
    // subfolder, the skill's parent's parent); a standard root that holds none is normal.
    const emptyRootWarnings = resolved.roots.flatMap((_root, position) =>
      resolved.explicit[position] === true &&
      scans[position]?.found.length === 0 &&
      scans[position]?.skipped.length === 0
        ? [`skills root ${resolved.sources[position]} holds no skill (no SKILL.md in it or below it)`]
        : [],
    );
    // Overlapping roots (`.` and `./skills`) reach the same folders twice: that is one skill, found
    // first under the earlier root, not a duplicate of itself.
    const seen = new Set<string>();
    const insideRoots = (realPath: string): boolean => resolved.roots.some((root) => isWithin(realPath, root));
    // A loop, not nested flatMaps and a spread: in a large library those made megabytes of
    // short-lived arrays and copies here, paid for in page faults and a collection during a cold listing.
    const folders: IndexedFolder[] = [];
    scans.forEach((scan, position) => {
      const root = resolved.sources[position] as string;
      for (const found of scan.found) {
        if (seen.has(found.realFolder)) continue;
        seen.add(found.realFolder);
        const toRead: SkillFileToRead = { path: found.file, realFolder: found.realFolder };
        if (found.linked) toRead.linkTargetAllowed = insideRoots;
        folders.push({
          folder: found.folder,
          file: found.file,
          linked: found.linked,
          relativeFolder: found.relativeFolder,
          realFolder: found.realFolder,
          folderName: found.folderName,
          root,
          toRead,
        });
      }
    });
    const index: ScanIndex = {
      roots: resolved.roots,
      folders,
      skipped: scans.flatMap((scan) =>
        scan.skipped.flatMap(({ path, reason, realFolder }) => {
          if (seen.has(realFolder)) return [];
          seen.add(realFolder);
          return [{ path, reason }];
        }),
      ),
      warnings: [...resolved.warnings, ...emptyRootWarnings, ...scans.flatMap((scan) => scan.warnings)],
      problems: resolved.problems,
    };
    return index;
  }

  async #load(indexed: IndexedFolder): Promise<{ signature: string; outcome: LoadOutcome } | undefined> {
    return (await this.#loadAll([indexed]))[0];
  }

  /** Every folder's SKILL.md, parsed, or its parse from the cache when its size, times and inode are unchanged. */
  async #loadAll(
    folders: readonly IndexedFolder[],
  ): Promise<({ signature: string; outcome: LoadOutcome } | undefined)[]> {
    const maxBytes = this.#bounds.maxSkillFileBytes;
    const reads = await readSkillFiles(
      folders.map((indexed) => indexed.toRead),
      maxBytes,
      // Nothing to look up in an empty cache (a cold listing): a look-up hashes the path, a microsecond each.
      this.#cache.size === 0 ? noCachedSignature : (position) => this.#cache.get(folders[position]!.file)?.signature,
      (bytes, signature, position) => this.#parse(folders[position]!, bytes, signature),
    );
    return reads.map((read, position) => {
      // Removed since the scan (or no longer a file): the skill is gone until it comes back.
      if (read.kind === 'missing') return undefined;
      // A read error may be passing; only a verdict on the content is worth remembering.
      if (read.kind === 'error')
        return { signature: read.signature ?? '', outcome: { reason: readErrorReason(read.code, read.detail) } };
      const { signature } = read;
      if (read.size > maxBytes)
        return {
          signature,
          outcome: { reason: `the file is ${read.size} bytes, over the ${maxBytes}-byte limit (maxSkillFileBytes)` },
        };
      return read.value ?? this.#cache.get(folders[position]!.file)!;
    });
  }

  /** One SKILL.md's parse (its bytes are valid only during the call), remembered unless the failure may pass. */
  #parse(indexed: IndexedFolder, bytes: Buffer, signature: string): CacheEntry {
    let outcome: LoadOutcome;
    try {
      const { folderName } = indexed;
      outcome = withSafeName(
        parseSkillMarkdownDeferringBody(bytes, { file: indexed.file, folderName }),
        indexed.file,
        folderName,
      );
    } catch (error) {
      outcome = { reason: reasonOf(error) };
      if (!(error instanceof SkillParseError)) return { signature, outcome };
    }
    const entry = { signature, outcome };
    this.#cache.set(indexed.file, entry);
    return entry;
  }

  async #buildView(index: ScanIndex): Promise<CatalogView> {
    const loads = await this.#loadAll(index.folders);
    // Every SKILL.md unchanged since the current view (the same cache entries): it is still right,
    // and rebuilding it was most of a `list()` right after `open()`.
    const current = this.#view;
    // A locked repository's view also depends on the skills' other files (checked against the lock
    // on every build, one stat per unchanged file), so it is always built again.
    if (
      current !== undefined &&
      this.#lockCheck === undefined &&
      current.index === index &&
      sameEntries(current.loads, loads)
    )
      return current;
    return buildCatalogView(index, loads, this.#lockCheck);
  }

  /** Re-checks every indexed SKILL.md (one stat each, a parse only for changed files). */
  #currentView(): Promise<CatalogView> {
    if (this.#view !== undefined) return this.#checkedView();
    // The first view after a lenient open(): one build however many callers ask at once.
    this.#firstView ??= this.#checkedView().finally(() => {
      this.#firstView = undefined;
    });
    return this.#firstView;
  }

  async #checkedView(): Promise<CatalogView> {
    const index = this.#index;
    const view = await this.#buildView(index);
    // A refresh that finished meanwhile has a newer view; do not replace it with this one.
    if (this.#index === index) this.#install(view);
    return view;
  }

  /**
   * Makes `view` current, and bumps the generation when what `list()` returns changes with it. The
   * first view is the one open() stands for (generation 1), whether open() read it or the first
   * `list()` did: nobody can have listed anything older.
   */
  #install(view: CatalogView): void {
    const before = this.#view?.summaries;
    this.#view = view;
    if (before !== undefined && !sameSummaries(before, view.summaries)) this.#generation += 1;
  }

  /**
   * Grows when `refresh()`, a watch re-scan, or a `list()` / `get()` that noticed an edited SKILL.md
   * changed the listed skills. An edit nobody has looked at yet does not count: the per-step
   * catalog, which relies on this instead of re-listing, follows edits after `refresh()` or `watch()`.
   */
  generation(): number {
    return this.#generation;
  }

  /** The winning skill of a name, re-parsed when its SKILL.md changed since the last look. */
  async #winner(name: string): Promise<ParsedSkillFolder> {
    const view = this.#view ?? (await this.#currentView());
    let loaded = view.winners.get(name);
    const refused = view.lockRefusals.get(name);
    // Checked again: the skill may have been put back as locked since the view was built.
    if (loaded === undefined && refused !== undefined) {
      await this.#lockCheck?.check(name, refused.folder);
      loaded = (await this.#currentView()).winners.get(name);
    }
    if (loaded) {
      const fresh = await this.#load(loaded.indexed);
      if (!fresh || fresh.signature !== loaded.signature) loaded = (await this.#currentView()).winners.get(name);
    }
    if (!loaded) throw this.#view?.lockRefusals.get(name) ?? new SkillNotFoundError(name);
    await this.#lockCheck?.check(name, loaded.indexed.folder);
    return loaded;
  }

  /**
   * The winning skill of a name with its whole parse. A listing keeps each skill's frontmatter, not
   * its file, so the body is read now, from the version the listing parsed: a file changed in
   * between is parsed again first. A file rewritten on every read fails after a few tries.
   */
  async #completedWinner(name: string): Promise<{ loaded: ParsedSkillFolder; parsed: ParsedSkill }> {
    for (let attempt = 0; ; attempt += 1) {
      const loaded = await this.#winner(name);
      if (!loaded.parsed.needsBytes) return { loaded, parsed: loaded.parsed.complete() };
      const [read] = await readSkillFiles(
        [loaded.indexed.toRead],
        this.#bounds.maxSkillFileBytes,
        noCachedSignature,
        (bytes, signature) => (signature === loaded.signature ? loaded.parsed.complete(bytes) : undefined),
        { confirm: true },
      );
      if (read?.kind === 'file' && read.value !== undefined) return { loaded, parsed: read.value };
      // Another version, or one being written: look again. Anything else will not pass by waiting.
      const settling = read?.kind === 'error' && read.code === 'SETTLING' ? Number(read.detail) : 0;
      if (read?.kind === 'error' && read.code !== 'CHANGED_WHILE_READ' && read.code !== 'SETTLING') {
        const problem = read.code === 'EACCES' || read.code === 'EPERM' ? 'permission' : 'io';
        throw new SkillFileReadError(name, 'SKILL.md', problem, readErrorReason(read.code, read.detail));
      }
      const delay = completionRetryDelaysMs[attempt + 1];
      if (delay === undefined) {
        if (read?.kind === 'missing') throw new SkillNotFoundError(name);
        throw new SkillFileReadError(
          name,
          'SKILL.md',
          'io',
          `it changed on each of ${completionRetryDelaysMs.length} reads; try again once it is no longer being written`,
        );
      }
      // A file that changed a moment ago is read again as soon as it has settled.
      await new Promise((resolve) => setTimeout(resolve, settling > 0 ? settling : delay));
    }
  }

  async list(): Promise<SkillSummary[]> {
    return (await this.#currentView()).summaries.map((summary) => ({ ...summary }));
  }

  /** The skill folder's real path, which must still be where the scan found it (see folderMovedReason). */
  async #scannedFolder(name: string, indexed: IndexedFolder, path: string): Promise<string> {
    // One system call, made directly: a trip through the thread pool costs more (list-skill-files.ts).
    const folder = realpathSync.native(indexed.folder);
    if (folder !== indexed.realFolder) throw new SkillPathError(name, path, folderMovedReason(folder));
    return folder;
  }

  /** The skill's files; a folder removed since the last look means the skill is gone. */
  async #files(name: string, indexed: IndexedFolder): Promise<SkillFileListing> {
    try {
      await this.#scannedFolder(name, indexed, '.');
      return await listSkillFiles(indexed.folder, {
        maxDepth: this.#bounds.maxDepth,
        maxFiles: this.#bounds.maxFilesPerSkill,
        rule: this.#fileRule,
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new SkillNotFoundError(name);
      throw error;
    }
  }

  /** `/`-separated folders, relative to this skill's folder, of the skills found inside it. */
  #nestedSkillFolders(indexed: IndexedFolder): string[] {
    if (!this.#options.nested) return [];
    const prefix = indexed.relativeFolder === '' ? '' : `${indexed.relativeFolder}/`;
    return this.#index.folders
      .filter(
        (other) =>
          other.root === indexed.root &&
          other !== indexed &&
          other.relativeFolder.startsWith(prefix) &&
          other.relativeFolder !== indexed.relativeFolder,
      )
      .map((other) => `${other.relativeFolder.slice(prefix.length)}/`);
  }

  async get(name: string): Promise<Skill> {
    const { loaded, parsed } = await this.#completedWinner(name);
    const { summary, indexed } = loaded;
    const listing = await this.#files(name, indexed);
    const nested = this.#nestedSkillFolders(indexed);
    const skill: Skill = {
      ...summary,
      body: parsed.body,
      docs: listing.files.filter(
        (file) => isDocumentPath(file) && !isSkillFilePath(file) && !nested.some((folder) => file.startsWith(folder)),
      ),
      tools: [...parsed.tools],
      allowedTools: [...parsed.allowedTools],
      frontmatter: structuredClone(parsed.frontmatter),
      warnings: [...parsed.warnings, ...listing.warnings],
      ...(parsed.license === undefined ? {} : { license: parsed.license }),
      ...(parsed.compatibility === undefined ? {} : { compatibility: parsed.compatibility }),
      ...(parsed.metadata === undefined ? {} : { metadata: structuredClone(parsed.metadata) }),
    };
    return skill;
  }

  async listFiles(name: string): Promise<string[]> {
    const { indexed } = await this.#winner(name);
    return (await this.#files(name, indexed)).files;
  }

  async readFile(name: string, relativePath: string): Promise<Buffer> {
    const { indexed } = await this.#winner(name);
    const path = normalizeBundledPath(name, relativePath);
    const refusal = this.#fileRule.refusalOf(path);
    if (refusal !== undefined) throw new SkillPathError(name, relativePath, refusal);
    let target: string;
    let folder: string;
    try {
      folder = await this.#scannedFolder(name, indexed, relativePath);
      target = await realpath(join(indexed.folder, path));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new SkillPathError(name, relativePath, 'the path goes through a link loop');
      throw bundledFileError(name, path, error);
    }
    if (!isWithin(target, folder))
      throw new SkillPathError(name, relativePath, 'a link in the path leads out of the skill folder');
    const realRelative = relative(folder, target).split(sep).join('/');
    const linkRefusal = realRelative === '' ? undefined : this.#fileRule.refusalOf(realRelative);
    if (linkRefusal !== undefined)
      throw new SkillPathError(name, relativePath, `a link in the path leads to "${realRelative}": ${linkRefusal}`);
    // The file opened must be the one checked: readBundledFile refuses one a link swapped in leads to.
    return readBundledFile(name, path, target, this.#bounds.maxReadableFileBytes);
  }

  async report(): Promise<RepositoryReport> {
    const view = this.#view ?? (await this.#currentView());
    return {
      skipped: view.skipped.map((skipped) => ({ ...skipped })),
      shadowed: view.shadowed.map((shadowed) => ({ ...shadowed })),
      warnings: [...this.#index.warnings],
    };
  }

  /**
   * Watches the roots of the last scan (recursively) and re-scans after file events settle. The
   * listener hears catalog changes (skills added, removed or changed) and, with the `files`
   * option, edits to the skills' other files. Roots that did not exist at the last scan are not
   * watched.
   */
  watch(listener: (event: SkillChangeEvent) => void, options: SkillWatchOptions = {}): SkillWatcher {
    return watchSkillRoots(
      {
        roots: () => this.#index.roots,
        refresh: () => this.refresh(),
        winners: () => this.#view?.winners,
        viewReady: () => (this.#view === undefined ? this.#currentView().then(noop, noop) : Promise.resolve()),
      },
      listener,
      options,
    );
  }
}

/** Scans the roots and returns the repository (same as `FsSkillRepository.open`). */
export function createFsSkillRepository(options: FsSkillRepositoryOptions = {}): Promise<FsSkillRepository> {
  return FsSkillRepository.open(options);
}
