import { createHash } from 'node:crypto';
import type { SkillContext, SkillRepository } from '../repository/types.js';

/**
 * The digest of a skill's SKILL.md as it is now: `sha256:` and 64 lowercase hex digits of its bytes,
 * the Skills Extension's digest format. The MCP server hands it out with `skill_load`'s result, and
 * `skill_run` takes it back as `skill_digest` from a client whose sessions do not keep loaded skills
 * (a new MCP session per call): proof that the model was given these very instructions, and that
 * they have not changed since.
 */
export async function skillInstructionsDigest(
  repository: SkillRepository,
  name: string,
  context?: SkillContext,
): Promise<string> {
  const bytes = await repository.readFile(name, 'SKILL.md', context);
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}
