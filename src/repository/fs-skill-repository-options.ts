import type { UrlRootOptions } from './url-root.js';

/** Options of `createFsSkillRepository`: the roots (folders or http(s) archives) and the limits they are read with. */
export interface FsSkillRepositoryOptions {
  /**
   * Folders, `file://` URLs or `http(s)://` URLs of archives (or of one SKILL.md) to scan, in
   * priority order. A URL is downloaded once into the cache (see `urlRoots`). When absent, the standard roots:
   * `SKILLS_ROOT` entries, `./.agents/skills`, `./.claude/skills`, `./skills`, `~/.agents/skills`,
   * `~/.claude/skills`.
   */
  roots?: readonly string[];
  /** Relative roots and the `./…` standard roots are resolved against this; defaults to `process.cwd()`. */
  cwd?: string;
  /** Where `SKILLS_ROOT` is read from; defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Home folder for the `~/…` standard roots; defaults to `os.homedir()`. */
  home?: string;
  /**
   * Fail instead of skipping: a skill that cannot be loaded, a duplicate name, or a named root that
   * is missing makes `open()` (and later `refresh()`) throw StrictRepositoryError listing them all.
   */
  strict?: boolean;
  /** Folder levels below a root that are scanned (default 12). */
  maxDepth?: number;
  /**
   * Directory entries read per root before the scan stops with a warning (default 250,000); a skill
   * folder known by its SKILL.md without reading the folder counts as one.
   */
  maxEntries?: number;
  /** Files listed per skill by `listFiles` and docs discovery (default 10,000). */
  maxFilesPerSkill?: number;
  /** A larger SKILL.md is skipped with a reason instead of parsed (default 8 MiB). */
  maxSkillFileBytes?: number;
  /**
   * `readFile` refuses a larger bundled file with SkillFileReadError naming its size and this limit,
   * checked by stat before anything is read (default 32 MiB).
   */
  maxReadableFileBytes?: number;
  /**
   * Case-insensitive name patterns (`*`, `?`) of files and folders inside a skill that are never
   * listed, counted as docs or served, because they usually hold secrets. Default:
   * `defaultDeniedFileNames` (`.env`, `.env.*`, `*.pem`, `*.key`, `id_rsa*`, `.npmrc`, ...); extend it
   * with `[...defaultDeniedFileNames, 'secrets.yaml']`, or pass `[]` to serve them. Paths through
   * `.git`, `node_modules`, `.venv` and `__pycache__` are refused whatever this says.
   */
  deniedFileNames?: readonly string[];
  /**
   * Index a SKILL.md inside another skill's folder as a skill of its own (default false: it is a
   * bundled file of the outer skill). The outer skill still owns every file below it (`listFiles`,
   * `readFile`, staging), but its `docs` leave out the files of the skills nested in it.
   */
  nested?: boolean;
  /**
   * Cache folder, limits, timeout and redirects for `http(s)://` roots. The cache folder defaults to
   * `SKILLS_CACHE_DIR` from `env`, else `$XDG_CACHE_HOME/skillbox/skills`, else `~/.cache/skillbox/skills`
   * under `home`.
   */
  urlRoots?: UrlRootOptions;
  /**
   * Check every skill against the `skills-lock.json` of the folder it is installed in before `get`,
   * `listFiles` or `readFile` hands it out (`<project>/skills-lock.json` for `<project>/.agents/skills`,
   * else the folder's own). A skill without an entry, or whose files differ from it, is left out of
   * `list()` (in `report().skipped` with the reason) and refused by `get` with LockedSkillError naming
   * the files; the other skills are unaffected. Cheap when nothing changed: one stat per file
   * (default false).
   */
  locked?: boolean;
  /**
   * Told each problem of a scan once, as a sentence: a root you named that is missing or not a
   * folder, a named root that holds no skill, a link not followed, a URL root that failed. Default:
   * `process.emitWarning` (printed once by Node as `(node:…) SkillboxWarning: …`), so a typo'd root is
   * not a silent empty catalog; pass your logger, or `() => {}` to keep them only in `report()`.
   * With `strict`, a missing named root throws instead.
   */
  onWarning?: (warning: string) => void;
}
