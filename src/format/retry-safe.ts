/** The `metadata` key a skill declares its scripts safe to retry with (docs/skill-format.md). */
export const retryMetadataKey = 'skillbox-retry';

/**
 * Whether a skill declares its scripts safe to run again after a run was lost mid-way (its sandbox
 * worker died): frontmatter `metadata: { skillbox-retry: safe }`. The specification leaves
 * `metadata` to clients; any other value, or none, means not safe, so a lost run is reported as
 * failed ("the worker was lost during the run; it may have had effects") instead of repeated.
 */
export function isRetrySafeSkill(skill: { metadata?: Record<string, unknown> | undefined }): boolean {
  const value = skill.metadata?.[retryMetadataKey];
  return typeof value === 'string' && value.trim().toLowerCase() === 'safe';
}
