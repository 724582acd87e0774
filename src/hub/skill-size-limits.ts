const mebibyte = 1024 * 1024;

/** How much one fetched skill may hold; every source reads within these and the installer checks them again. */
export interface SkillSizeLimits {
  /** Bytes of one file (default 64 MiB, the URL-root download limit). */
  readonly maxFileBytes: number;
  /** Bytes of all files of one skill together (default 256 MiB). */
  readonly maxSkillBytes: number;
  /** Files in one skill (default 10,000, the repository's `maxFilesPerSkill`). */
  readonly maxFiles: number;
}

/** The limits used when a caller sets none. */
export const defaultSkillSizeLimits: SkillSizeLimits = {
  maxFileBytes: 64 * mebibyte,
  maxSkillBytes: 256 * mebibyte,
  maxFiles: 10_000,
};
