import { SkillboxError } from '../errors.js';

/** A tool call the model can correct. The message is shown to the model as the tool result. */
export class SkillToolError extends SkillboxError {
  constructor(message: string) {
    super('SKILL_TOOL_ERROR', message);
  }
}
