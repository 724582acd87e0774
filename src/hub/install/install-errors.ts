import { SkillboxError } from '../../errors.js';
import { redactErrorChain, redactUrlCredentials } from '../url-credentials.js';

/**
 * An install, update, removal or restore that was refused or failed; nothing was changed on disk.
 * The message never holds a URL's password or token (they are written `***`).
 */
export class SkillInstallError extends SkillboxError {
  constructor(why: string, options?: { cause?: unknown }) {
    super('SKILL_INSTALL_FAILED', redactUrlCredentials(why), options);
    redactErrorChain(options?.cause);
  }
}
