import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { findSkillMarkdown } from './find-skill-markdown.js';
import { validateSkillText } from './validate-skill-text.js';
import type { ValidationResult } from './validation-result.js';

/**
 * Validates a skill strictly, as `skills-ref validate` does. `path` is the skill folder or its
 * SKILL.md (any letter case of `skill.md`, as skills-ref accepts). The result's `path` is `path`
 * as given; problems with the path itself are reported as errors, never thrown.
 */
export async function validateSkillDirectory(path: string): Promise<ValidationResult> {
  const fail = (message: string): ValidationResult => ({ path, valid: false, errors: [message], warnings: [] });
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return fail(`Path does not exist: ${path}`);
    return fail(`Cannot read ${path}: ${(error as Error).message}`);
  }

  let folder = path;
  let file: string | undefined;
  if (info.isFile() && basename(path).toLowerCase() === 'skill.md') {
    folder = dirname(path);
    file = path;
  } else if (!info.isDirectory()) {
    return fail(`Not a directory: ${path}`);
  }

  let bytes: Buffer;
  try {
    file ??= await findSkillMarkdown(folder);
    if (file === undefined) return fail('Missing required file: SKILL.md');
    bytes = await readFile(file);
  } catch (error) {
    return fail(`Cannot read ${file ?? folder}: ${(error as Error).message}`);
  }
  // Resolved so that `.` and a trailing slash still name the folder; links are not followed, as in skills-ref.
  const folderName = basename(resolve(folder));
  return { ...validateSkillText(bytes, { folderName }), path };
}
