// Hostile skill sources: each must be refused with an error naming the problem, with nothing
// installed, no staging left behind, and the lock file and installed skills byte for byte as before.
import { execFileSync } from 'node:child_process';
import { lstat, mkdtemp, readdir, readFile, readlink, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillInstallError } from '../../src/hub/install/install-errors.js';
import { addSkills, type InstallerOptions, installFromLock } from '../../src/hub/install/installer.js';
import type { FetchedFile, FetchedSkill, SkillSource } from '../../src/hub/skill-source.js';
import { createSourceRegistry } from '../../src/hub/source-registry.js';
import { createLocalSkillSource } from '../../src/hub/sources/local-source.js';
import { SkillSourceError } from '../../src/hub/sources/skill-source-error.js';
import { skillFile, writeTestFiles } from '../../src/hub/testing/skill-folder.js';

let project: string;
let options: InstallerOptions;
let served: FetchedSkill[];

/** A source that hands the installer whatever the test puts in `served`, as a compromised server would. */
const hostileSource: SkillSource = {
  type: 'git',
  matches: (reference) => reference.startsWith('hostile:'),
  resolve: async (reference) => ({
    sourceType: 'git',
    source: reference,
    sourceUrl: 'https://hostile.invalid/repo.git',
    pinned: 'a'.repeat(40),
  }),
  fetch: async () => served,
};

const file = (path: string, text = 'x', executable = false): FetchedFile => ({
  path,
  bytes: Buffer.from(text),
  executable,
});
const skill = (name: string, files: FetchedFile[]): FetchedSkill => ({ name, skillPath: `skills/${name}`, files });

/** Every path below the project (outside the hostile source's folder) with its content or link target. */
async function snapshot(): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  const walk = async (folder: string, prefix: string): Promise<void> => {
    for (const name of await readdir(folder)) {
      if (prefix === '' && name === 'vendor') continue;
      const path = join(folder, name);
      const stats = await lstat(path);
      const key = `${prefix}${name}`;
      if (stats.isDirectory()) await walk(path, `${key}/`);
      else if (stats.isSymbolicLink()) result[key] = `-> ${await readlink(path)}`;
      else result[key] = `${stats.mode & 0o777}:${await readFile(path, 'utf8')}`;
    }
  };
  await walk(project, '');
  return result;
}

async function expectRefusedWithNothingChanged(attempt: () => Promise<unknown>, message: RegExp): Promise<void> {
  const before = await snapshot();
  const error = await attempt().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, 'the install should have been refused').toBeInstanceOf(Error);
  expect(error instanceof SkillInstallError || error instanceof SkillSourceError).toBe(true);
  expect((error as Error).message).toMatch(message);
  expect(await snapshot()).toEqual(before);
}

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'skillbox-hostile-'));
  options = {
    registry: createSourceRegistry([hostileSource, createLocalSkillSource({ cwd: project })]),
    cwd: project,
  };
  // A skill installed before the attack, whose files and lock entry must survive it.
  await writeTestFiles(join(project, 'vendor/good'), [{ path: 'SKILL.md', text: skillFile('good') }]);
  await addSkills('./vendor/good', {}, options);
  served = [];
});
afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

describe('installing from a hostile source', () => {
  it('refuses a path that climbs out of the skill folder', async () => {
    served = [skill('evil', [file('SKILL.md', skillFile('evil')), file('../../escaped.txt')])];
    await expectRefusedWithNothingChanged(
      () => addSkills('hostile:x', {}, options),
      /"\.\.\/\.\.\/escaped\.txt" climbs out/,
    );
  });

  it('refuses an absolute path, a Windows drive path and a backslash path', async () => {
    for (const path of ['/etc/cron.d/evil', 'C:/Windows/evil', 'docs\\..\\..\\evil']) {
      served = [skill('evil', [file('SKILL.md', skillFile('evil')), file(path)])];
      await expectRefusedWithNothingChanged(() => addSkills('hostile:x', {}, options), /is absolute|holds a backslash/);
    }
  });

  it('refuses a skill name that is a path', async () => {
    for (const name of ['../good', '.hidden', 'a/b', '']) {
      served = [{ name, skillPath: '', files: [file('SKILL.md', skillFile('evil'))] }];
      await expectRefusedWithNothingChanged(() => addSkills('hostile:x', {}, options), /skill name/);
    }
  });

  it('refuses two paths that are one file on a case-insensitive disk, and a file that is also a folder', async () => {
    served = [skill('evil', [file('SKILL.md', skillFile('evil')), file('Run.sh'), file('run.sh')])];
    await expectRefusedWithNothingChanged(() => addSkills('hostile:x', {}, options), /appears twice/);
    served = [skill('evil', [file('SKILL.md', skillFile('evil')), file('docs'), file('docs/a.md')])];
    await expectRefusedWithNothingChanged(() => addSkills('hostile:x', {}, options), /both a file and a folder/);
  });

  it('refuses two paths that are one file on macOS by Unicode normalization: café.md in NFC and NFD', async () => {
    const composed = 'caf\u00E9.md';
    const decomposed = 'cafe\u0301.md';
    served = [skill('evil', [file('SKILL.md', skillFile('evil')), file(composed, 'one'), file(decomposed, 'two')])];
    await expectRefusedWithNothingChanged(() => addSkills('hostile:x', {}, options), /appears twice/);
    // A folder and a file that normalise to one name, and case and normalization at once.
    served = [
      skill('evil', [file('SKILL.md', skillFile('evil')), file(`docs/${composed}`), file('DOCS/CAFE\u0301.MD')]),
    ];
    await expectRefusedWithNothingChanged(() => addSkills('hostile:x', {}, options), /appears twice/);
    served = [skill('evil', [file('SKILL.md', skillFile('evil')), file(composed), file(`${decomposed}/x`)])];
    await expectRefusedWithNothingChanged(() => addSkills('hostile:x', {}, options), /both a file and a folder/);
  });

  it('refuses a 65 MiB file from a source', async () => {
    served = [
      skill('big', [
        file('SKILL.md', skillFile('big')),
        { path: 'blob.bin', bytes: new Uint8Array(65 * 1024 * 1024), executable: false },
      ]),
    ];
    await expectRefusedWithNothingChanged(
      () => addSkills('hostile:x', {}, options),
      /blob\.bin is 68157440 bytes, over the 67108864-byte limit/,
    );
  });

  it('refuses the whole install when one of several skills is bad: the good ones are not written either', async () => {
    served = [
      skill('fine', [file('SKILL.md', skillFile('fine'))]),
      skill('evil', [file('SKILL.md', skillFile('evil')), file('../x')]),
    ];
    await expectRefusedWithNothingChanged(() => addSkills('hostile:x', {}, options), /climbs out/);
  });

  it('refuses a skill without SKILL.md', async () => {
    served = [skill('empty', [file('README.md')])];
    await expectRefusedWithNothingChanged(() => addSkills('hostile:x', {}, options), /has no SKILL\.md/);
  });
});

describe('installing from a hostile local folder', () => {
  it('refuses a link that leads out of the skill folder', async () => {
    await writeTestFiles(join(project, 'vendor/linky'), [
      { path: 'SKILL.md', text: skillFile('linky') },
      { path: 'docs/passwd.md', linkTo: '/etc/passwd' },
    ]);
    await expectRefusedWithNothingChanged(
      () => addSkills('./vendor/linky', {}, options),
      /linky\/docs\/passwd\.md is a link that leads out of the skill folder, to \/etc\/passwd/,
    );
  });

  it('refuses a link to a folder outside, and a link whose target is gone', async () => {
    await writeTestFiles(join(project, 'vendor/dirlink'), [
      { path: 'SKILL.md', text: skillFile('dirlink') },
      { path: 'etc', linkTo: '/etc' },
    ]);
    await expectRefusedWithNothingChanged(
      () => addSkills('./vendor/dirlink', {}, options),
      /leads out of the skill folder/,
    );
    await writeTestFiles(join(project, 'vendor/dangling'), [
      { path: 'SKILL.md', text: skillFile('dangling') },
      { path: 'gone.md', linkTo: 'nowhere.md' },
    ]);
    await expectRefusedWithNothingChanged(() => addSkills('./vendor/dangling', {}, options), /leads nowhere/);
  });

  it('refuses a FIFO instead of blocking on it', async () => {
    await writeTestFiles(join(project, 'vendor/fifo'), [{ path: 'SKILL.md', text: skillFile('fifo') }]);
    execFileSync('mkfifo', [join(project, 'vendor/fifo/pipe')]);
    await expectRefusedWithNothingChanged(() => addSkills('./vendor/fifo', {}, options), /pipe is not a regular file/);
  });

  it('refuses a 65 MiB file before reading it', async () => {
    await writeTestFiles(join(project, 'vendor/huge'), [{ path: 'SKILL.md', text: skillFile('huge') }]);
    await writeFile(join(project, 'vendor/huge/data.bin'), '');
    await truncate(join(project, 'vendor/huge/data.bin'), 65 * 1024 * 1024);
    await expectRefusedWithNothingChanged(
      () => addSkills('./vendor/huge', {}, options),
      /huge\/data\.bin is 68157440 bytes, over the 67108864-byte limit per file/,
    );
  });
});

describe('a lock entry whose content was edited', () => {
  it('install --frozen refuses a lock whose digest was changed, leaving everything as it was', async () => {
    const lockPath = join(project, 'skills-lock.json');
    const lock = JSON.parse(await readFile(lockPath, 'utf8'));
    lock.skills.good.skillbox.digest = 'f'.repeat(64);
    await writeFile(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
    await expectRefusedWithNothingChanged(
      () => installFromLock({ ...options, frozen: true }),
      /good: the content of \.\/vendor\/good differs from the lock/,
    );
  });

  it('install --frozen refuses a source whose pin moved', async () => {
    served = [skill('pinned', [file('SKILL.md', skillFile('pinned'))])];
    await addSkills('hostile:x', {}, options);
    const lockPath = join(project, 'skills-lock.json');
    const lock = JSON.parse(await readFile(lockPath, 'utf8'));
    lock.skills.pinned.skillbox.pinned = 'b'.repeat(40);
    await writeFile(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
    await expectRefusedWithNothingChanged(
      () => installFromLock({ ...options, frozen: true }),
      /pinned: hostile:x resolved to a{40}, the lock says b{40}/,
    );
  });
});
