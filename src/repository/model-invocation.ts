import { isPlainRecord } from '../format/is-plain-record.js';

/**
 * Whether a skill may be offered to the model, read from its SKILL.md frontmatter:
 * `disable-model-invocation: true` (Claude Code's switch for user-invoked skills) or
 * `metadata.internal: true` (skills meant for a project's own tooling) say no. `false` then;
 * `undefined` otherwise, so a summary only carries the field when the skill opted out.
 */
export function modelInvocableFromFrontmatter(frontmatter: Record<string, unknown>): false | undefined {
  const metadata = frontmatter.metadata;
  const internal = isPlainRecord(metadata) ? metadata.internal : undefined;
  return isTrue(frontmatter['disable-model-invocation']) || isTrue(internal) ? false : undefined;
}

// YAML gives a boolean for `true`; a quoted "true" is what authors meant as well.
function isTrue(value: unknown): boolean {
  return value === true || (typeof value === 'string' && value.trim().toLowerCase() === 'true');
}
