import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { frontmatterProblems } from '../../format/frontmatter-rules.js';
import { SkillInstallError } from './install-errors.js';

/** Options of `initSkill`. */
export interface InitSkillOptions {
  /** The folder the skill folder is created in (default: the current folder). */
  readonly folder?: string;
  readonly cwd?: string;
  /** The frontmatter description (default: a placeholder that says what to write). */
  readonly description?: string;
}

/**
 * `skillbox init NAME`: creates `<folder>/<NAME>/SKILL.md` holding a valid skill (the name checked
 * by the specification's rules before anything is written). Refuses an existing folder.
 */
export async function initSkill(name: string, options: InitSkillOptions = {}): Promise<string> {
  const description =
    options.description ??
    `Describe what ${name} does and when an agent should use it (the model sees only this line before loading the skill).`;
  const problems = frontmatterProblems({ name, description }, name);
  if (problems.length > 0) throw new SkillInstallError(`cannot create skill "${name}": ${problems.join('; ')}`);
  const folder = join(resolve(options.cwd ?? process.cwd(), options.folder ?? '.'), name);
  try {
    await mkdir(folder, { recursive: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new SkillInstallError(`${folder} exists already; pick another name or folder`);
    if (code === 'ENOENT') await mkdir(folder, { recursive: true });
    else throw error;
  }
  const text = `---
name: ${name}
description: ${JSON.stringify(description)}
---

# ${name}

Instructions the agent follows once it loads this skill. Keep this file short; put long
reference material in separate files next to it and name them here, so they are read only when needed.

## Steps

1. ...
`;
  await writeFile(join(folder, 'SKILL.md'), text, { flag: 'wx' });
  return folder;
}
