/**
 * Every error skillbox throws on purpose is a SkillboxError with a stable `code`, so callers can
 * branch on the kind without parsing messages. Layers define subclasses next to their code.
 */
export class SkillboxError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}
