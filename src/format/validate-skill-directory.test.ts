import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateSkillDirectory } from './validate-skill-directory.js';

let temporary: string;

beforeEach(async () => {
  temporary = await mkdtemp(join(tmpdir(), 'skillbox-validate-'));
});

afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

describe('validateSkillDirectory', () => {
  it('accepts the SKILL.md itself and judges the name against its folder', async () => {
    const folder = join(temporary, 'good-skill');
    await mkdir(folder);
    await writeFile(join(folder, 'SKILL.md'), '---\nname: good-skill\ndescription: d\n---\nBody\n');
    const file = join(folder, 'SKILL.md');
    expect(await validateSkillDirectory(file)).toEqual({ path: file, valid: true, errors: [], warnings: [] });
    expect(await validateSkillDirectory(`${folder}/`)).toMatchObject({ valid: true });
  });

  it('uses the lowercase skill.md given by path, and refuses other files', async () => {
    const folder = join(temporary, 'lower');
    await mkdir(folder);
    await writeFile(join(folder, 'skill.md'), '---\nname: other\ndescription: d\n---\n');
    await writeFile(join(folder, 'notes.md'), 'x');
    expect((await validateSkillDirectory(join(folder, 'skill.md'))).errors).toEqual([
      "Directory name 'lower' must match skill name 'other'",
    ]);
    expect((await validateSkillDirectory(join(folder, 'notes.md'))).errors).toEqual([
      `Not a directory: ${join(folder, 'notes.md')}`,
    ]);
  });
});
