import { SkillboxError } from '../../errors.js';

/** A skill the scan or the lock refuses: nothing was sent to the provider. */
export class SkillUploadRefusedError extends SkillboxError {
  constructor(why: string) {
    super('SKILL_UPLOAD_REFUSED', why);
  }
}

/** The provider answered an upload with an error (its status and message), or could not be reached. */
export class SkillUploadFailedError extends SkillboxError {
  /** The HTTP status, when the provider answered. */
  readonly status: number | undefined;

  constructor(why: string, status?: number, options?: { cause?: unknown }) {
    super('SKILL_UPLOAD_FAILED', why, options);
    this.status = status;
  }
}
