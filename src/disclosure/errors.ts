import { SkillboxError } from '../errors.js';

/** A caller-declared load is malformed (blank name, docs with includeAllDocs, conflicts, over the cap). */
export class SkillLoadRequestError extends SkillboxError {
  constructor(message: string) {
    super('SKILL_LOAD_REQUEST_INVALID', `invalid skill load request: ${message}`);
  }
}

/** A caller-declared load names a skill or document the repository does not offer to this caller. */
export class SkillUnavailableError extends SkillboxError {
  readonly skill: string;

  constructor(skill: string, message: string, options?: { cause?: unknown }) {
    super('SKILL_UNAVAILABLE', `skill unavailable: ${message}`, options);
    this.skill = skill;
  }
}
