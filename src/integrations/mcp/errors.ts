import { type ConfigProblem, SkillboxConfigError } from '../../config/config-error.js';

/**
 * `createSkillMcpServer` was given options it cannot work with.
 *
 * @deprecated Match `isSkillboxError(error, 'CONFIG_INVALID')` or `SkillboxConfigError` instead. The
 * server still throws this subclass, so `instanceof SkillMcpConfigError` keeps working; its code is
 * `CONFIG_INVALID` like every other option error (docs/mcp.md, "Errors and options").
 */
export class SkillMcpConfigError extends SkillboxConfigError {
  /** The first wrong option; the same as `option`. */
  get field(): string {
    return this.option;
  }

  constructor(component: string, problems: readonly ConfigProblem[]) {
    super(component, problems);
  }
}
