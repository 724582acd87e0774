// The contract every place skills are installed from implements (GitHub, git, npm, well-known
// indexes, marketplaces, search services, local folders). It is shared by the sources and the
// installer, which only ever sees `FetchedSkill`s: files in memory, already checked, so nothing is
// written to disk before the whole skill has been read and validated.

/** Where a skill came from, in the vocabulary of the `skills` CLI's lockfile plus `local`. */
export type SkillSourceType =
  | 'github'
  | 'git'
  | 'local'
  | 'npm'
  | 'well-known'
  | 'marketplace'
  | 'skills-sh'
  | 'clawhub';

/** A source reference pinned to what it pointed at when it was resolved. */
export interface ResolvedSource {
  /** The kind of source. */
  readonly sourceType: SkillSourceType;
  /** The reference as the user gave it, e.g. `owner/repo/skills@main` or `npm:some-package`. */
  readonly source: string;
  /** The canonical URL (or absolute path for a local folder) the files come from. */
  readonly sourceUrl: string;
  /** The ref the user asked for (branch, tag, version range), when there was one. */
  readonly ref?: string;
  /** The immutable identity the ref resolved to: a commit, a package version, an index digest. */
  readonly pinned?: string;
}

/** One file of a fetched skill: a confined relative path (`/` separators) and its exact bytes. */
export interface FetchedFile {
  readonly path: string;
  readonly bytes: Uint8Array;
  /** Whether the file carried an executable mode bit in its source (archive entry, git tree, folder). */
  readonly executable: boolean;
}

/** A skill as a source delivers it, before anything is written to disk. */
export interface FetchedSkill {
  /** The skill's name (its folder name, which matches the frontmatter `name` in a valid skill). */
  readonly name: string;
  /** The folder of the skill inside the source (`skills/pdf`), `''` when the source is the skill. */
  readonly skillPath: string;
  /** Every file of the skill, SKILL.md included, paths relative to the skill folder. */
  readonly files: readonly FetchedFile[];
}

/** One hit of a source's search. */
export interface SourceSearchResult {
  readonly name: string;
  readonly description: string;
  /** A reference `skillbox add` accepts to install this hit. */
  readonly source: string;
  /** Installs or downloads, when the service reports them. */
  readonly installs?: number;
}

/** Options every source method accepts. */
export interface SourceCallOptions {
  /** Cancels the network work of the call. */
  readonly signal?: AbortSignal;
}

/** A place skills can be installed from. */
export interface SkillSource {
  readonly type: SkillSourceType;
  /** Whether `reference` is written in this source's syntax (the installer asks each source in turn). */
  matches(reference: string): boolean;
  /** Pins `reference` (and `ref`, when given) to an immutable identity without downloading the skills. */
  resolve(reference: string, options?: SourceCallOptions & { readonly ref?: string }): Promise<ResolvedSource>;
  /** Downloads and checks the skills of a resolved source; `skills` keeps only those names. */
  fetch(
    resolved: ResolvedSource,
    options?: SourceCallOptions & { readonly skills?: readonly string[] },
  ): Promise<readonly FetchedSkill[]>;
  /** Searches the source's catalogue, for sources that have one. */
  search?(
    query: string,
    options?: SourceCallOptions & { readonly limit?: number },
  ): Promise<readonly SourceSearchResult[]>;
}
