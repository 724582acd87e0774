import { SkillboxError } from '../../errors.js';

/** `createSkillMcpServer` was given an option it cannot work with; `field` names it. */
export class SkillMcpConfigError extends SkillboxError {
  readonly field: string;

  constructor(field: string, why: string) {
    super('SKILL_MCP_CONFIG_INVALID', `${field} ${why}`);
    this.field = field;
  }
}
