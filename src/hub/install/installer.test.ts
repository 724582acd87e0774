import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSkillsLock } from '../../repository/skills-lock-file.js';
import { createSourceRegistry } from '../source-registry.js';
import { createLocalSkillSource } from '../sources/local-source.js';
import { skillFile, writeTestFiles } from '../testing/skill-folder.js';
import { SkillInstallError } from './install-errors.js';
import {
  addSkills,
  type InstallerOptions,
  installFromLock,
  removeSkill,
  updateSkills,
  verifyInstalled,
} from './installer.js';

let project: string;
let options: InstallerOptions;

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'skillbox-installer-'));
  options = { registry: createSourceRegistry([createLocalSkillSource({ cwd: project })]), cwd: project };
  await writeTestFiles(join(project, 'vendor'), [
    { path: 'skills/pdf/SKILL.md', text: skillFile('pdf') },
    { path: 'skills/pdf/scripts/fill.sh', text: '#!/bin/sh\necho fill\n', executable: true },
    { path: 'skills/csv/SKILL.md', text: skillFile('csv') },
  ]);
});
afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

const lockFile = () => join(project, 'skills-lock.json');
const installed = () => readdir(join(project, '.agents/skills')).catch(() => []);

describe('installer', () => {
  it('installs into ./.agents/skills and writes the skills CLI fields plus skillbox per-file hashes', async () => {
    const result = await addSkills('./vendor', {}, options);
    expect(result.map((skill) => skill.name)).toEqual(['csv', 'pdf']);
    expect((await installed()).sort()).toEqual(['csv', 'pdf']);
    const script = join(project, '.agents/skills/pdf/scripts/fill.sh');
    expect((await stat(script)).mode & 0o777).toBe(0o755);
    const lock = await readSkillsLock(lockFile());
    const pdf = lock?.skills.pdf;
    expect(pdf).toMatchObject({ source: './vendor', sourceType: 'local' });
    expect(pdf?.sourceUrl).toBeUndefined();
    expect(pdf?.computedHash).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(pdf?.skillbox?.files ?? {})).toEqual(['SKILL.md', 'scripts/fill.sh']);
    expect(pdf?.skillbox?.files['scripts/fill.sh']?.executable).toBe(true);
    expect(await readdir(project)).not.toContain(expect.stringMatching(/staging/));
    expect((await readdir(join(project, '.agents'))).sort()).toEqual(['skills']);
  });

  it('keeps lock fields and entries it does not know, and writes entries sorted as the skills CLI does', async () => {
    await writeFile(
      lockFile(),
      JSON.stringify({
        version: 1,
        skills: { zeta: { source: 'o/r', sourceType: 'github', computedHash: 'x', subagents: ['a'] } },
      }),
    );
    await addSkills('./vendor', { skills: ['pdf'] }, options);
    const text = await readFile(lockFile(), 'utf8');
    expect(Object.keys(JSON.parse(text).skills)).toEqual(['pdf', 'zeta']);
    expect(JSON.parse(text).skills.zeta.subagents).toEqual(['a']);
    expect(text.endsWith('}\n')).toBe(true);
  });

  it("verify finds a project lock's skills wherever an agent installed them (.claude/skills), as list --locked does", async () => {
    await addSkills('./vendor', { skills: ['pdf'] }, { ...options, target: '.claude/skills' });
    await addSkills('./vendor', { skills: ['csv'] }, options);
    // Both in the one project lock, one under .agents/skills and one under .claude/skills.
    expect(Object.keys((await readSkillsLock(lockFile()))?.skills ?? {})).toEqual(['csv', 'pdf']);
    expect((await verifyInstalled({ cwd: project })).skills).toEqual([
      { name: 'csv', differences: [] },
      { name: 'pdf', differences: [] },
    ]);
    await writeFile(join(project, '.claude/skills/pdf/scripts/fill.sh'), '#!/bin/sh\necho changed\n');
    await writeTestFiles(join(project, '.claude/skills/stray'), [{ path: 'SKILL.md', text: skillFile('stray') }]);
    const report = await verifyInstalled({ cwd: project });
    expect(report.skills).toEqual([
      { name: 'csv', differences: [] },
      { name: 'pdf', differences: ['scripts/fill.sh: content changed (23 bytes, the lock says 20)'] },
    ]);
    expect(report.unlisted).toEqual([join(project, '.claude/skills/stray')]);
    // --to names one folder: only that one is looked in.
    const only = await verifyInstalled({ cwd: project, target: '.agents/skills' });
    expect(only.skills.find((skill) => skill.name === 'pdf')?.differences).toEqual([
      `${join(project, '.agents/skills/pdf')}: the skill folder is missing`,
    ]);
  });

  it('updates a skill whose source changed and leaves the others', async () => {
    await addSkills('./vendor', {}, options);
    expect(await updateSkills(undefined, options)).toEqual([]);
    await writeFile(join(project, 'vendor/skills/csv/SKILL.md'), skillFile('csv', 'Reads CSV, now better.'));
    const updated = await updateSkills(undefined, options);
    expect(updated.map((skill) => skill.name)).toEqual(['csv']);
    expect(await readFile(join(project, '.agents/skills/csv/SKILL.md'), 'utf8')).toContain('now better');
    expect((await verifyInstalled(options)).skills.every((skill) => skill.differences.length === 0)).toBe(true);
  });

  it('removes a skill and its entry', async () => {
    await addSkills('./vendor', {}, options);
    await removeSkill('csv', options);
    expect(await installed()).toEqual(['pdf']);
    expect(Object.keys((await readSkillsLock(lockFile()))?.skills ?? {})).toEqual(['pdf']);
    await expect(removeSkill('csv', options)).rejects.toThrow(SkillInstallError);
  });

  it('verify lists every difference: changed, added, removed, executable bit, unlisted skill', async () => {
    await addSkills('./vendor', {}, options);
    const pdf = join(project, '.agents/skills/pdf');
    // Same size as before, so only the content hash can tell.
    await writeFile(join(pdf, 'SKILL.md'), skillFile('pdf', 'The pdf skilL.'));
    await writeFile(join(pdf, 'extra.md'), 'new\n');
    await chmod(join(pdf, 'scripts/fill.sh'), 0o644);
    await rm(join(project, '.agents/skills/csv/SKILL.md'));
    await writeTestFiles(join(project, '.agents/skills/stray'), [{ path: 'SKILL.md', text: skillFile('stray') }]);
    const report = await verifyInstalled(options);
    expect(report.skills).toEqual([
      { name: 'csv', differences: ['SKILL.md: removed'] },
      {
        name: 'pdf',
        differences: [
          'SKILL.md: content changed (sha256 differs from the lock)',
          'extra.md: added (not in the lock)',
          'scripts/fill.sh: executable bit removed',
        ],
      },
    ]);
    expect(report.unlisted).toEqual(['stray']);
  });

  it('install --frozen restores exactly what the lock says into an empty target', async () => {
    await addSkills('./vendor', {}, options);
    const lockBefore = await readFile(lockFile(), 'utf8');
    await rm(join(project, '.agents'), { recursive: true });
    const restored = await installFromLock({ ...options, frozen: true });
    expect(restored.map((skill) => skill.name)).toEqual(['csv', 'pdf']);
    expect(await readFile(lockFile(), 'utf8')).toBe(lockBefore);
    expect((await verifyInstalled(options)).skills.every((skill) => skill.differences.length === 0)).toBe(true);
  });

  it('install --frozen fails with nothing written when a source no longer has the locked content', async () => {
    await addSkills('./vendor', {}, options);
    const lockBefore = await readFile(lockFile(), 'utf8');
    await rm(join(project, '.agents'), { recursive: true });
    await writeFile(join(project, 'vendor/skills/pdf/SKILL.md'), skillFile('pdf', 'Moved on.'));
    await expect(installFromLock({ ...options, frozen: true })).rejects.toThrow(
      /pdf: the content of \.\/vendor differs from the lock/,
    );
    expect(await installed()).toEqual([]);
    expect(await readFile(lockFile(), 'utf8')).toBe(lockBefore);
  });

  it('--deny-scripts and a declined review write nothing', async () => {
    await expect(addSkills('./vendor', {}, { ...options, denyScripts: true })).rejects.toThrow(
      /refused by --deny-scripts: pdf\/scripts\/fill.sh/,
    );
    let shown = 0;
    await expect(
      addSkills(
        './vendor',
        {},
        {
          ...options,
          review: (reports) => {
            shown = reports.length;
            return false;
          },
        },
      ),
    ).rejects.toThrow(/declined/);
    expect(shown).toBe(2);
    expect(await installed()).toEqual([]);
    expect(await readSkillsLock(lockFile())).toBeUndefined();
  });

  it('reports progress in phases', async () => {
    const phases: string[] = [];
    await addSkills('./vendor', { skills: ['csv'] }, { ...options, onProgress: ({ phase }) => phases.push(phase) });
    expect(phases).toEqual(['resolving', 'fetching', 'scanning', 'writing']);
  });
});
