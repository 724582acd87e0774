import { SkillboxError } from '../errors.js';

/**
 * A SKILL.md that cannot be loaded at all (the lenient runtime skips it and reports `reason`).
 * Only the skip cases throw this: broken YAML, a frontmatter that is not a mapping, a missing or
 * empty description, or no frontmatter. Every other rule only warns.
 */
export class SkillParseError extends SkillboxError {
  /** Path of the SKILL.md, when the caller gave one. */
  readonly file?: string;
  /** 1-based line in the original file the problem is on, when it has one. */
  readonly line?: number;
  /** The problem alone, without file and line (what a report lists as the skip reason). */
  readonly reason: string;

  constructor(reason: string, location: { file?: string; line?: number } = {}, options?: { cause?: unknown }) {
    super('SKILL_PARSE_ERROR', `${describeLocation(location)}${reason}`, options);
    if (location.file !== undefined) this.file = location.file;
    if (location.line !== undefined) this.line = location.line;
    this.reason = reason;
  }
}

function describeLocation({ file, line }: { file?: string; line?: number }): string {
  if (file !== undefined) return line === undefined ? `${file}: ` : `${file}:${line}: `;
  return line === undefined ? '' : `line ${line}: `;
}
