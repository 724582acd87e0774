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
  /** Every difference found, each naming a file (`scripts/run.sh: content changed`). */
  readonly differences: readonly string[];

  constructor(skill: string, differences: readonly string[]) {
    const shown = differences.slice(0, 5).join('; ');
    const more = differences.length > 5 ? `; and ${differences.length - 5} more (skillbox verify lists them)` : '';
    super('LOCKED_SKILL_CHANGED', `skill "${skill}" does not match skills-lock.json and is refused: ${shown}${more}`);
    this.skill = skill;
    this.differences = differences;
  }
}
