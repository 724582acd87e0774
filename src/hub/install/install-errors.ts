import { SkillboxError } from '../../errors.js';

/** An install, update, removal or restore that was refused or failed; nothing was changed on disk. */
export class SkillInstallError extends SkillboxError {
  constructor(why: string, options?: { cause?: unknown }) {
    super('SKILL_INSTALL_FAILED', why, options);
  }
}
