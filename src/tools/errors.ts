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

/** `createSkillTools` was given options that cannot work together (a profile without its tools, an unknown tool name). */
export class SkillToolsConfigError extends SkillboxError {
  readonly field: string;

  constructor(field: string, why: string) {
    super('SKILL_TOOLS_CONFIG_INVALID', `${field} ${why}`);
    this.field = field;
  }
}
