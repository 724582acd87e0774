/**
 * True when a skill declares its scripts safe to run again after a run was lost mid-way (a worker
 * died): frontmatter `metadata: { skillbox-retry: safe }`. The specification leaves `metadata` to
 * clients, so the declaration needs no new frontmatter field.
 */
export function isRetrySafeSkill(skill: { metadata?: Record<string, unknown> | undefined }): boolean {
  return skill.metadata?.['skillbox-retry'] === 'safe';
}
