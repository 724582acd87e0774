/** The `metadata` key a skill names the container image its scripts need with (docs/skill-requirements.md). */
export const imageMetadataKey = 'skillbox-image';

/**
 * An image reference as the Engine API takes it (`name[:tag][@digest]`, registry and path parts):
 * letters, digits and `._/:@-`, no spaces, nothing a daemon would read as an option.
 */
export const imageReference = /^[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}$/;

/**
 * The image a skill names for its scripts: frontmatter `metadata: { skillbox-image: IMAGE }`, a
 * string as the specification asks of `metadata` values. Undefined when it names none; a value
 * that is not an image reference is reported, never guessed at.
 */
export function readSkillImage(skill: {
  metadata?: Record<string, unknown> | undefined;
}): { image: string | undefined; warning?: undefined } | { image: undefined; warning: string } {
  const value = skill.metadata?.[imageMetadataKey];
  if (value === undefined || value === null) return { image: undefined };
  if (typeof value === 'string' && imageReference.test(value.trim())) return { image: value.trim() };
  return {
    image: undefined,
    warning: `metadata ${imageMetadataKey}: ${JSON.stringify(value)} is not an image reference such as "debian:bookworm-slim"; ignored`,
  };
}
