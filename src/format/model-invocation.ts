import { isPlainRecord } from './is-plain-record.js';

/**
 * Why a skill may not be offered to the model, read from its SKILL.md frontmatter:
 * `disable-model-invocation: true` (Claude Code's switch for user-invoked skills) or
 * `metadata.internal: true` (skills meant for a project's own tooling). The field that says so, or
 * undefined when the model may see the skill.
 */
export function modelHiddenReason(frontmatter: Record<string, unknown>): string | undefined {
  if (isTrue(frontmatter['disable-model-invocation'])) return 'disable-model-invocation: true';
  const metadata = frontmatter.metadata;
  if (isPlainRecord(metadata) && isTrue(metadata.internal)) return 'metadata.internal: true';
  return undefined;
}

/** `false` when the model may not see the skill (see modelHiddenReason); `undefined` otherwise, so a summary only carries the field when the skill opted out. */
export function modelInvocableFromFrontmatter(frontmatter: Record<string, unknown>): false | undefined {
  return modelHiddenReason(frontmatter) === undefined ? undefined : false;
}

// YAML gives a boolean for `true`; a quoted "true" is what authors meant as well.
function isTrue(value: unknown): boolean {
  return value === true || (typeof value === 'string' && value.trim().toLowerCase() === 'true');
}
