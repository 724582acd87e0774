import { SkillboxError } from '../errors.js';

export class SkillNotFoundError extends SkillboxError {
  readonly skill: string;

  constructor(skill: string) {
    super('SKILL_NOT_FOUND', `skill "${skill}" not found`);
    this.skill = skill;
  }
}

/** A path given for a bundled file that is absolute, climbs out with `..`, or leaves through a link. */
export class SkillPathError extends SkillboxError {
  readonly skill: string;
  readonly path: string;

  constructor(skill: string, path: string, why: string) {
    super('SKILL_PATH_REFUSED', `refused path "${path}" in skill "${skill}": ${why}`);
    this.skill = skill;
    this.path = path;
  }
}

export class SkillFileNotFoundError extends SkillboxError {
  readonly skill: string;
  readonly path: string;

  constructor(skill: string, path: string) {
    super('SKILL_FILE_NOT_FOUND', `skill "${skill}" has no file "${path}"`);
    this.skill = skill;
    this.path = path;
  }
}

/** A skill defined in code (MemorySkillRepository) with a missing or malformed field. */
export class SkillDefinitionError extends SkillboxError {
  /** Position of the definition in the array given to the factory. */
  readonly index: number;
  readonly field: string;

  constructor(index: number, field: string, why: string) {
    super('INVALID_SKILL_DEFINITION', `skill definition #${index}: field "${field}" ${why}`);
    this.index = index;
    this.field = field;
  }
}

/** Options given to a repository factory that cannot work (a blank root, a negative bound, ...). */
export class SkillRepositoryOptionsError extends SkillboxError {
  readonly option: string;

  constructor(option: string, why: string) {
    super('INVALID_REPOSITORY_OPTIONS', `repository option "${option}" ${why}`);
    this.option = option;
  }
}

/**
 * A strict repository found invalid skills or duplicate names. Every problem is listed, so one run
 * shows the whole list instead of one problem per attempt.
 */
export class StrictRepositoryError extends SkillboxError {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(
      'STRICT_REPOSITORY_FAILED',
      `${problems.length} skill problem${problems.length === 1 ? '' : 's'} (strict mode):\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    );
    this.problems = problems;
  }
}
