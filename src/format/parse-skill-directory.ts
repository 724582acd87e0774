import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { SkillParseError } from './errors.js';
import { findSkillMarkdown } from './find-skill-markdown.js';
import { parseSkillMarkdown } from './parse-skill.js';
import type { ParsedSkill } from './types.js';

/**
 * Reads one skill folder leniently (skills-ref's `read_properties`): its SKILL.md (or
 * `skill.md`), with the folder's name as the fallback name. Throws SkillParseError when there is
 * no SKILL.md or it is one of the skip cases; repositories scan many folders with their own cache.
 */
export async function parseSkillDirectory(folder: string): Promise<ParsedSkill> {
  const file = await findSkillMarkdown(folder);
  if (file === undefined) throw new SkillParseError(`SKILL.md not found in ${folder}`);
  return parseSkillMarkdown(await readFile(file), { file, folderName: basename(resolve(folder)) });
}
