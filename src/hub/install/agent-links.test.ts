import { lstat, mkdir, mkdtemp, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
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
  project = await mkdtemp(join(tmpdir(), 'skillbox-links-'));
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

const at = (path: string) => join(project, path);
const lockEntry = async (name: string) => (await readSkillsLock(at('skills-lock.json')))?.skills[name];
const exists = (path: string) =>
  lstat(at(path)).then(
    () => true,
    () => false,
  );

describe('agent links', () => {
  it('links each skill into .claude/skills with a relative link the skills CLI would make, and records it', async () => {
    const installed = await addSkills('./vendor', { link: ['claude-code'] }, options);
    expect(installed.map((skill) => skill.links)).toEqual([
      [{ agent: 'claude-code', path: at('.claude/skills/csv'), mode: 'symlink' }],
      [{ agent: 'claude-code', path: at('.claude/skills/pdf'), mode: 'symlink' }],
    ]);
    expect(await readlink(at('.claude/skills/pdf'))).toBe('../../.agents/skills/pdf');
    expect(await readFile(at('.claude/skills/pdf/SKILL.md'), 'utf8')).toBe(skillFile('pdf'));
    expect((await lockEntry('pdf'))?.skillbox?.links).toEqual({ 'claude-code': 'symlink' });
  });

  it('needs no link for an agent that reads .agents/skills, and names the known agents for an unknown one', async () => {
    const installed = await addSkills('./vendor', { skills: ['csv'], link: ['codex'] }, options);
    expect(installed[0]?.links).toEqual([]);
    expect((await lockEntry('csv'))?.skillbox?.links).toBeUndefined();
    const error = await addSkills('./vendor', { link: ['claude'] }, options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SkillInstallError);
    expect((error as Error).message).toMatch(/unknown agent "claude" for --link; known agents .*claude-code/);
  });

  it('update keeps the link and it shows the new content; add without --link keeps earlier links', async () => {
    await addSkills('./vendor', { skills: ['pdf'], link: ['claude-code', 'windsurf'] }, options);
    await writeFile(at('vendor/skills/pdf/SKILL.md'), skillFile('pdf', 'Changed.'));
    expect((await updateSkills(undefined, options)).map((skill) => skill.links.map((link) => link.agent))).toEqual([
      ['claude-code', 'windsurf'],
    ]);
    expect(await readFile(at('.windsurf/skills/pdf/SKILL.md'), 'utf8')).toContain('Changed.');
    expect((await lstat(at('.claude/skills/pdf'))).isSymbolicLink()).toBe(true);
    await addSkills('./vendor', { skills: ['pdf'] }, options);
    expect((await lockEntry('pdf'))?.skillbox?.links).toEqual({ 'claude-code': 'symlink', windsurf: 'symlink' });
  });

  it('install restores recorded links, and remove deletes them with the skill', async () => {
    await addSkills('./vendor', { skills: ['pdf'], link: ['claude-code'] }, options);
    await rm(at('.agents'), { recursive: true });
    await rm(at('.claude'), { recursive: true });
    await installFromLock({ ...options, frozen: true });
    expect(await readlink(at('.claude/skills/pdf'))).toBe('../../.agents/skills/pdf');
    const removed = await removeSkill('pdf', options);
    expect(removed.keptLinks).toEqual([]);
    expect(await exists('.claude/skills/pdf')).toBe(false);
    expect(await exists('.agents/skills/pdf')).toBe(false);
    expect(await lockEntry('pdf')).toBeUndefined();
  });

  it('copies when asked: executable bits kept, the copy refreshed on update and removed with the skill', async () => {
    await addSkills('./vendor', { skills: ['pdf'], link: ['claude-code'], linkMode: 'copy' }, options);
    const copy = await lstat(at('.claude/skills/pdf'));
    expect(copy.isDirectory() && !copy.isSymbolicLink()).toBe(true);
    expect((await stat(at('.claude/skills/pdf/scripts/fill.sh'))).mode & 0o777).toBe(0o755);
    expect((await lockEntry('pdf'))?.skillbox?.links).toEqual({ 'claude-code': 'copy' });
    await writeFile(at('vendor/skills/pdf/SKILL.md'), skillFile('pdf', 'Changed.'));
    await updateSkills(['pdf'], options);
    expect(await readFile(at('.claude/skills/pdf/SKILL.md'), 'utf8')).toContain('Changed.');
    await removeSkill('pdf', options);
    expect(await exists('.claude/skills/pdf')).toBe(false);
    expect(await exists('.claude/skills')).toBe(true);
  });

  it('a user who replaced a link with a folder of their own keeps it: update refuses, remove leaves it', async () => {
    await addSkills('./vendor', { skills: ['pdf'], link: ['claude-code'] }, options);
    await rm(at('.claude/skills/pdf'));
    await mkdir(at('.claude/skills/pdf'));
    await writeFile(at('.claude/skills/pdf/SKILL.md'), 'mine');
    await writeFile(at('vendor/skills/pdf/SKILL.md'), skillFile('pdf', 'Changed.'));
    await expect(updateSkills(['pdf'], options)).rejects.toThrow(
      `${at('.claude/skills/pdf')} is a folder skillbox did not make`,
    );
    const removed = await removeSkill('pdf', options);
    expect(removed.keptLinks).toEqual([`${at('.claude/skills/pdf')} (a folder skillbox did not make; left as it is)`]);
    expect(await readFile(at('.claude/skills/pdf/SKILL.md'), 'utf8')).toBe('mine');
  });

  it('verify reports a recorded link that is missing or was replaced', async () => {
    await addSkills('./vendor', { skills: ['pdf', 'csv'], link: ['claude-code'] }, options);
    expect((await verifyInstalled(options)).skills.map((skill) => skill.differences)).toEqual([[], []]);
    await rm(at('.claude/skills/csv'));
    await rm(at('.claude/skills/pdf'));
    await mkdir(at('.claude/skills/pdf'));
    expect((await verifyInstalled(options)).skills).toEqual([
      { name: 'csv', differences: [`${at('.claude/skills/csv')}: the link for claude-code is missing`] },
      {
        name: 'pdf',
        differences: [`${at('.claude/skills/pdf')}: is a folder skillbox did not make, the lock records a symlink`],
      },
    ]);
  });
});
