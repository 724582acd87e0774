import { SkillboxError } from '../errors.js';

/** A source could not resolve or fetch a reference: the message names the reference and the reason. */
export class SkillSourceError extends SkillboxError {
  /** The reference as the user gave it. */
  readonly reference: string;

  constructor(reference: string, why: string, options?: { cause?: unknown }) {
    super('SKILL_SOURCE_FAILED', `${reference}: ${why}`, options);
    this.reference = reference;
  }
}
