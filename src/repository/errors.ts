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

/** Why a bundled file that exists could not be read. */
export type SkillFileReadProblem = 'too-large' | 'folder' | 'not-a-file' | 'permission' | 'io';

/**
 * A bundled file that is there but cannot be served: larger than the repository's read limit, a
 * folder, a device or pipe, not readable by this process, or an I/O failure. Kept apart from
 * SkillFileNotFoundError so a caller (or a model) is not sent to look for a file that exists.
 */
export class SkillFileReadError extends SkillboxError {
  readonly skill: string;
  readonly path: string;
  readonly problem: SkillFileReadProblem;
  /** The file's size in bytes, when the problem is its size. */
  readonly size: number | undefined;
  /** The read limit in bytes, when the problem is the file's size. */
  readonly limit: number | undefined;

  constructor(
    skill: string,
    path: string,
    problem: SkillFileReadProblem,
    why: string,
    options: { cause?: unknown; size?: number; limit?: number } = {},
  ) {
    super('SKILL_FILE_UNREADABLE', `cannot read file "${path}" of skill "${skill}": ${why}`, { cause: options.cause });
    this.skill = skill;
    this.path = path;
    this.problem = problem;
    this.size = options.size;
    this.limit = options.limit;
  }
}

/**
 * Roots the caller named that cannot be scanned: missing, not a folder, or a URL that could not be
 * fetched. The repository itself only warns about them (and fails in strict mode); a caller for
 * which a named root is a promise, like a `--root` argument, throws this.
 */
export class UnusableSkillRootError extends SkillboxError {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(
      'SKILL_ROOT_UNUSABLE',
      problems.length === 1
        ? String(problems[0])
        : `${problems.length} skills roots cannot be used:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    );
    this.problems = problems;
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
