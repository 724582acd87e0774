import { SkillboxError } from '../errors.js';

/** A `skills-lock.json` that cannot be read or does not have the shape the `skills` CLI writes. */
export class SkillsLockError extends SkillboxError {
  /** The lock file. */
  readonly file: string;

  constructor(file: string, why: string, options?: { cause?: unknown }) {
    super('SKILLS_LOCK_INVALID', `${file}: ${why}`, options);
    this.file = file;
  }
}

/**
 * An installed skill that does not match its lock entry (a file edited, added or removed), or that
 * has no entry, loaded by a repository with the `locked` option.
 */
export class LockedSkillError extends SkillboxError {
  readonly skill: string;
  /** The skill's installed folder. */
  readonly folder: string;
  /**
   * Every difference found, each naming a file relative to `folder` (`scripts/run.sh: content
   * changed`), or the lock or entry that is missing.
   */
  readonly differences: readonly string[];

  constructor(skill: string, folder: string, differences: readonly string[]) {
    super('LOCKED_SKILL_CHANGED', `skill "${skill}" in ${folder} ${lockMismatchReason(differences)}`);
    this.skill = skill;
    this.folder = folder;
    this.differences = differences;
  }
}

/** Why a skill that differs from its lock is left out, the first differences named (a listing's "skipped" reason). */
export function lockMismatchReason(differences: readonly string[]): string {
  const shown = differences.slice(0, 5).join('; ');
  const more = differences.length > 5 ? `; and ${differences.length - 5} more (skillbox verify lists them)` : '';
  return `does not match skills-lock.json, so it is left out: ${shown}${more}`;
}
