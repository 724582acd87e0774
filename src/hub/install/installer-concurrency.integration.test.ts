import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSkillsLock } from '../../repository/skills-lock-file.js';
import { skillFile, writeTestFiles } from '../testing/skill-folder.js';
import { verifyInstalled } from './installer.js';

const run = promisify(execFile);
const installerModule = fileURLToPath(new URL('./installer.ts', import.meta.url));
const registryModule = fileURLToPath(new URL('../source-registry.ts', import.meta.url));
const localModule = fileURLToPath(new URL('../sources/local-source.ts', import.meta.url));

let project: string;

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'skillbox-concurrent-'));
  for (const name of ['alpha', 'beta', 'gamma', 'delta'])
    await writeTestFiles(join(project, 'vendor', name), [
      { path: 'SKILL.md', text: skillFile(name) },
      // Enough files that an unlocked read-modify-write of the lock would interleave.
      ...Array.from({ length: 40 }, (_, index) => ({ path: `docs/page-${index}.md`, text: `${name} ${index}\n` })),
    ]);
});
afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

/** A separate Node process running one `addSkills` into the project. */
function installInProcess(reference: string): Promise<{ stdout: string }> {
  const script = `
    import { addSkills } from ${JSON.stringify(installerModule)};
    import { createSourceRegistry } from ${JSON.stringify(registryModule)};
    import { createLocalSkillSource } from ${JSON.stringify(localModule)};
    const cwd = ${JSON.stringify(project)};
    const done = await addSkills(${JSON.stringify(reference)}, {}, { cwd, registry: createSourceRegistry([createLocalSkillSource({ cwd })]) });
    console.log(done.map((skill) => skill.name).join(','));`;
  return run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 120_000 });
}

describe('concurrent installs', () => {
  it('4 processes installing different skills into one target all land, in the folder and in the lock', async () => {
    const results = await Promise.all(
      ['alpha', 'beta', 'gamma', 'delta'].map((name) => installInProcess(`./vendor/${name}`)),
    );
    expect(results.map((result) => result.stdout.trim()).sort()).toEqual(['alpha', 'beta', 'delta', 'gamma']);
    expect((await readdir(join(project, '.agents/skills'))).sort()).toEqual(['alpha', 'beta', 'delta', 'gamma']);
    expect(Object.keys((await readSkillsLock(join(project, 'skills-lock.json')))?.skills ?? {})).toEqual([
      'alpha',
      'beta',
      'delta',
      'gamma',
    ]);
    const report = await verifyInstalled({ cwd: project });
    expect(report.skills.every((skill) => skill.differences.length === 0)).toBe(true);
    // No staging folder or lock folder is left behind.
    expect((await readdir(join(project, '.agents'))).sort()).toEqual(['skills']);
    expect((await readdir(project)).sort()).toEqual(['.agents', 'skills-lock.json', 'vendor']);
  }, 180_000);

  it('4 processes installing the same skill at once leave one complete copy', async () => {
    await Promise.all(Array.from({ length: 4 }, () => installInProcess('./vendor/alpha')));
    expect(await readdir(join(project, '.agents/skills'))).toEqual(['alpha']);
    expect((await verifyInstalled({ cwd: project })).skills).toEqual([{ name: 'alpha', differences: [] }]);
    expect((await readdir(join(project, '.agents'))).sort()).toEqual(['skills']);
  }, 180_000);
});
