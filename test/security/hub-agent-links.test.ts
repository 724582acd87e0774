// `add --link`: the agent folders are the user's. A link, file or folder there that skillbox did not
// make is never followed, replaced or deleted, no path leaves the project (not through a `.claude`
// that is itself a link), and a name or lock entry cannot aim a removal anywhere else.
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillInstallError } from '../../src/hub/install/install-errors.js';
import { addSkills, type InstallerOptions, removeSkill } from '../../src/hub/install/installer.js';
import { createSourceRegistry } from '../../src/hub/source-registry.js';
import { createLocalSkillSource } from '../../src/hub/sources/local-source.js';
import { skillFile, writeTestFiles } from '../../src/hub/testing/skill-folder.js';
import { readSkillsLock, writeSkillsLock } from '../../src/repository/skills-lock-file.js';

let root: string;
let project: string;
let outside: string;
let options: InstallerOptions;

/** Every path below `folder` with its content or link target. */
async function snapshot(folder: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  const walk = async (current: string, prefix: string): Promise<void> => {
    for (const name of await readdir(current)) {
      const path = join(current, name);
      const stats = await lstat(path);
      const key = `${prefix}${name}`;
      if (stats.isSymbolicLink()) result[key] = `-> ${await readlink(path)}`;
      else if (stats.isDirectory()) await walk(path, `${key}/`);
      else result[key] = await readFile(path, 'utf8');
    }
  };
  await walk(folder, '');
  return result;
}

async function expectRefused(attempt: () => Promise<unknown>, message: string): Promise<void> {
  const before = { project: await snapshot(project), outside: await snapshot(outside) };
  const error = await attempt().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, 'the install should have been refused').toBeInstanceOf(SkillInstallError);
  expect((error as Error).message).toContain(message);
  expect({ project: await snapshot(project), outside: await snapshot(outside) }).toEqual(before);
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'skillbox-link-attack-'));
  project = join(root, 'project');
  outside = join(root, 'outside');
  await mkdir(outside);
  await writeFile(join(outside, 'SKILL.md'), "the user's own file outside the project");
  options = { registry: createSourceRegistry([createLocalSkillSource({ cwd: project })]), cwd: project };
  await writeTestFiles(join(project, 'vendor'), [{ path: 'pdf/SKILL.md', text: skillFile('pdf') }]);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('agent links', () => {
  it('refuses a link at .claude/skills/NAME that points outside, and never writes through it', async () => {
    await mkdir(join(project, '.claude/skills'), { recursive: true });
    await symlink(outside, join(project, '.claude/skills/pdf'));
    await expectRefused(
      () => addSkills('./vendor', { link: ['claude-code'] }, options),
      `${join(project, '.claude/skills/pdf')} is a link to ${outside}; skillbox will not replace it`,
    );
    expect(await readdir(join(project))).not.toContain('.agents');
  });

  it('refuses a file and a folder of the user in the way', async () => {
    await mkdir(join(project, '.claude/skills'), { recursive: true });
    await writeFile(join(project, '.claude/skills/pdf'), 'a file');
    await expectRefused(
      () => addSkills('./vendor', { link: ['claude-code'] }, options),
      `${join(project, '.claude/skills/pdf')} is a file`,
    );
    await rm(join(project, '.claude/skills/pdf'));
    await mkdir(join(project, '.claude/skills/pdf'));
    await expectRefused(
      () => addSkills('./vendor', { link: ['claude-code'] }, options),
      `${join(project, '.claude/skills/pdf')} is a folder skillbox did not make`,
    );
  });

  it('refuses an agent folder that leads outside the project through a link', async () => {
    await mkdir(project, { recursive: true });
    await symlink(outside, join(project, '.claude'));
    await expectRefused(
      () => addSkills('./vendor', { link: ['claude-code'] }, options),
      `${join(project, '.claude/skills')} leads outside the project`,
    );
    await rm(join(project, '.claude'));
    await mkdir(join(project, '.windsurf'));
    await symlink(outside, join(project, '.windsurf/skills'));
    await expectRefused(
      () => addSkills('./vendor', { link: ['windsurf'] }, options),
      `${join(project, '.windsurf/skills')} leads outside the project`,
    );
  });

  it('remove leaves a link the user re-pointed elsewhere, and never deletes through it', async () => {
    await addSkills('./vendor', { link: ['claude-code'] }, options);
    await rm(join(project, '.claude/skills/pdf'));
    await symlink(outside, join(project, '.claude/skills/pdf'));
    const removed = await removeSkill('pdf', options);
    expect(removed.keptLinks).toEqual([`${join(project, '.claude/skills/pdf')} (a link to ${outside}; left as it is)`]);
    expect(await readFile(join(outside, 'SKILL.md'), 'utf8')).toBe("the user's own file outside the project");
    expect(await readlink(join(project, '.claude/skills/pdf'))).toBe(outside);
  });

  it('refuses a remove name that climbs, deleting nothing', async () => {
    await addSkills('./vendor', {}, options);
    await mkdir(join(project, '.agents/victim'), { recursive: true });
    for (const name of ['../victim', '../../outside', '..', '.', '', 'a/b', '..\\x']) {
      const before = { project: await snapshot(project), outside: await snapshot(outside) };
      await expect(removeSkill(name, options)).rejects.toThrow('give a skill name, not a path');
      expect({ project: await snapshot(project), outside: await snapshot(outside) }).toEqual(before);
    }
  });

  it('a forged lock cannot aim link removal outside: links are recorded by agent name only', async () => {
    await addSkills('./vendor', { link: ['claude-code'] }, options);
    const lockFile = join(project, 'skills-lock.json');
    const lock = await readSkillsLock(lockFile);
    const entry = lock?.skills.pdf;
    if (lock === undefined || entry?.skillbox === undefined) throw new Error('no lock entry');
    const forged = { ...entry.skillbox, links: { 'claude-code': 'symlink', '../../../outside': 'copy' } } as const;
    await writeSkillsLock(lockFile, { ...lock, skills: { pdf: { ...entry, skillbox: forged } } });
    const removed = await removeSkill('pdf', options);
    expect(removed.keptLinks).toEqual(['the link for unknown agent "../../../outside" (not removed)']);
    expect(await snapshot(outside)).toEqual({ 'SKILL.md': "the user's own file outside the project" });
  });
});
