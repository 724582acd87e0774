import { SkillboxError } from '../errors.js';

/** A tool call the model can correct. The message is shown to the model as the tool result. */
export class SkillToolError extends SkillboxError {
  constructor(message: string) {
    super('SKILL_TOOL_ERROR', message);
  }

  /** The AI SDK (ai 7) shows the model `toString()`: the model should read the message, not a class name. */
  override toString(): string {
    return this.message;
  }
}
