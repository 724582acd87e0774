import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** The file names that make a folder a skill, in order of preference. */
export const SKILL_FILE_NAMES: readonly string[] = ['SKILL.md', 'skill.md'];

/**
 * The SKILL.md of a skill folder: `SKILL.md`, else `skill.md` (exact names, also on
 * case-insensitive file systems), else undefined. Errors reading the folder propagate.
 */
export async function findSkillMarkdown(folder: string): Promise<string | undefined> {
  const entries = new Set(await readdir(folder));
  const name = SKILL_FILE_NAMES.find((candidate) => entries.has(candidate));
  return name === undefined ? undefined : join(folder, name);
}
