import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { skillFile, writeTestFiles } from '../testing/skill-folder.js';
import { createLocalSkillSource } from './local-source.js';
import { SkillSourceError } from './skill-source-error.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'skillbox-local-source-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('local folder source', () => {
  it('takes the references the skills CLI treats as local paths, and file: URLs', () => {
    const source = createLocalSkillSource({ cwd: base });
    for (const reference of ['./skills', '../x', '.', '..', '/abs/path', 'file:///tmp/x'])
      expect(source.matches(reference), reference).toBe(true);
    for (const reference of ['owner/repo', 'npm:pkg', 'https://example.com/x.git'])
      expect(source.matches(reference), reference).toBe(false);
  });

  it('fetches every skill below a folder with its files, bytes and executable bits', async () => {
    await writeTestFiles(join(base, 'repo'), [
      { path: 'skills/pdf/SKILL.md', text: skillFile('pdf') },
      { path: 'skills/pdf/scripts/fill.py', text: 'print(1)\n', executable: true },
      { path: 'skills/csv/SKILL.md', text: skillFile('csv') },
      { path: 'node_modules/dep/SKILL.md', text: skillFile('dep') },
    ]);
    const source = createLocalSkillSource({ cwd: base });
    const resolved = await source.resolve('./repo');
    expect(resolved).toEqual({ sourceType: 'local', source: './repo', sourceUrl: join(base, 'repo') });
    const skills = await source.fetch(resolved);
    expect(skills.map((skill) => [skill.name, skill.skillPath])).toEqual([
      ['csv', 'skills/csv'],
      ['pdf', 'skills/pdf'],
    ]);
    const pdf = skills.find((skill) => skill.name === 'pdf');
    expect(pdf?.files.map((file) => [file.path, file.executable])).toEqual([
      ['SKILL.md', false],
      ['scripts/fill.py', true],
    ]);
    expect(text(pdf?.files[1]?.bytes ?? new Uint8Array())).toBe('print(1)\n');
    expect((await source.fetch(resolved, { skills: ['csv'] })).map((skill) => skill.name)).toEqual(['csv']);
  });

  it('names the skill by its frontmatter and fetches a folder that is itself a skill', async () => {
    await writeTestFiles(join(base, 'folder-name'), [{ path: 'SKILL.md', text: skillFile('real-name') }]);
    const source = createLocalSkillSource({ cwd: base });
    const [skill] = await source.fetch(await source.resolve('./folder-name'));
    expect(skill?.name).toBe('real-name');
    expect(skill?.skillPath).toBe('');
  });

  it('copies a link to a file inside the skill as that file', async () => {
    await writeTestFiles(join(base, 's'), [
      { path: 'SKILL.md', text: skillFile('s') },
      { path: 'docs/real.md', text: 'real\n' },
      { path: 'docs/alias.md', linkTo: 'real.md' },
    ]);
    const source = createLocalSkillSource({ cwd: base });
    const [skill] = await source.fetch(await source.resolve('./s'));
    expect(text(skill?.files.find((file) => file.path === 'docs/alias.md')?.bytes ?? new Uint8Array())).toBe('real\n');
  });

  it('refuses a skill name that is not there, a missing folder and a --ref, naming them', async () => {
    await writeTestFiles(join(base, 'r'), [{ path: 'a/SKILL.md', text: skillFile('a') }]);
    const source = createLocalSkillSource({ cwd: base });
    const resolved = await source.resolve('./r');
    await expect(source.fetch(resolved, { skills: ['zzz'] })).rejects.toThrow(/no skill named zzz/);
    await expect(source.resolve('./missing')).rejects.toThrow(SkillSourceError);
    await expect(source.resolve('./r', { ref: 'main' })).rejects.toThrow(/a local folder has no refs/);
  });
});
