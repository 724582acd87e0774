import { SkillboxError } from '../../errors.js';

/** A skill is over the Skills Extension's per-skill limits (512 files, 16 MiB), so it is not served; `skill` names it. */
export class McpSkillLimitError extends SkillboxError {
  readonly skill: string;

  constructor(skill: string, why: string) {
    super(
      'MCP_SKILL_OVER_LIMITS',
      `skill "${skill}" ${why}, over the Skills Extension's limits of 512 files and 16 MiB per skill, so it is not served`,
    );
    this.skill = skill;
  }
}

/**
 * What an MCP server served does not match what it listed (digest, size, frontmatter), or a file
 * outside the skill's manifest was asked for. The content is not used. `server`, `skill` and `file`
 * name where.
 */
export class McpSkillVerificationError extends SkillboxError {
  readonly server: string;
  readonly skill: string;
  readonly file: string;

  constructor(server: string, skill: string, file: string, why: string) {
    super('MCP_SKILL_VERIFICATION_FAILED', `MCP server "${server}", skill "${skill}", file "${file}": ${why}`);
    this.server = server;
    this.skill = skill;
    this.file = file;
  }
}

/** An MCP server could not be reached or answered outside the Skills Extension's contract; `server` names it. */
export class McpSkillServerError extends SkillboxError {
  readonly server: string;

  constructor(server: string, why: string, options?: { cause?: unknown }) {
    super('MCP_SKILL_SERVER_FAILED', `MCP server "${server}": ${why}`, options);
    this.server = server;
  }
}
