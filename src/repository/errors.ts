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
