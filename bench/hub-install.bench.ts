// What `locked: true` costs per skill load: LockedSkillCheck on an installed skill of 20 files
// (~320 KiB) when nothing changed (one lstat per file), when one file's times changed (that file is
// hashed again) and when every file's did (the whole skill is hashed), against a bare stat of its
// SKILL.md, and FsSkillRepository.get with and without the option. Figures only.
import { mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { addSkills } from '../src/hub/install/installer.js';
import { createSourceRegistry } from '../src/hub/source-registry.js';
import { createLocalSkillSource } from '../src/hub/sources/local-source.js';
import { skillFile, writeTestFiles } from '../src/hub/testing/skill-folder.js';
import { FsSkillRepository } from '../src/repository/fs-skill-repository.js';
import { LockedSkillCheck } from '../src/repository/locked-skill-check.js';
import { formatSpread, pairedRatio, quick, reportRatio, spreadOf } from './bench-support.js';

const files = 20;
const bytesPerFile = 16 * 1024;

async function time(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) * 1000;
}

export async function run(): Promise<void> {
  const rounds = quick ? 60 : 300;
  const project = await mkdtemp(join(tmpdir(), 'skillbox-bench-locked-'));
  try {
    await writeTestFiles(join(project, 'vendor'), [
      { path: 'SKILL.md', text: skillFile('bench') },
      ...Array.from({ length: files - 1 }, (_, index) => ({
        path: `docs/page-${index}.md`,
        text: `${'lorem ipsum '.repeat(bytesPerFile / 12)}\n`,
      })),
    ]);
    await addSkills(
      './vendor',
      {},
      { cwd: project, registry: createSourceRegistry([createLocalSkillSource({ cwd: project })]) },
    );
    const folder = join(project, '.agents/skills/bench');
    const check = new LockedSkillCheck();
    await check.check('bench', folder);
    const plain = await FsSkillRepository.open({ roots: [join(project, '.agents/skills')] });
    const locked = await FsSkillRepository.open({ roots: [join(project, '.agents/skills')], locked: true });
    await plain.get('bench');
    await locked.get('bench');
    const samples = {
      stat: [] as number[],
      unchanged: [] as number[],
      oneTouched: [] as number[],
      allTouched: [] as number[],
      get: [] as number[],
      lockedGet: [] as number[],
    };
    let clock = Date.now();
    const touch = async (paths: string[]) => {
      clock += 1000;
      for (const path of paths) await utimes(join(folder, path), new Date(clock), new Date(clock));
    };
    const every = ['SKILL.md', ...Array.from({ length: files - 1 }, (_, index) => `docs/page-${index}.md`)];
    for (let round = 0; round < rounds; round += 1) {
      samples.stat.push(await time(() => stat(join(folder, 'SKILL.md'))));
      samples.unchanged.push(await time(() => check.check('bench', folder)));
      // The locked repository has its own check, which has not seen last round's touches yet.
      await locked.get('bench');
      samples.get.push(await time(() => plain.get('bench')));
      samples.lockedGet.push(await time(() => locked.get('bench')));
      await touch(['docs/page-0.md']);
      samples.oneTouched.push(await time(() => check.check('bench', folder)));
      await touch(every);
      samples.allTouched.push(await time(() => check.check('bench', folder)));
    }
    console.log(
      `installed skill: ${files} files of ${bytesPerFile} bytes; ${rounds} rounds; microseconds per call, median [middle half]`,
    );
    const rows: [string, number[]][] = [
      ['bare stat of SKILL.md', samples.stat],
      ['lock check, unchanged', samples.unchanged],
      ['lock check, 1 file touched (re-hashed)', samples.oneTouched],
      ['lock check, all files touched (re-hashed)', samples.allTouched],
      ['repository.get', samples.get],
      ['repository.get, locked: true (unchanged)', samples.lockedGet],
    ];
    for (const [label, values] of rows)
      console.log(`  ${label.padEnd(44)} ${formatSpread(spreadOf(values), 0, ' µs')}`);
    reportRatio({
      benchmark: 'hub-install',
      comparison: 'lock check unchanged / stat',
      ratio: pairedRatio(samples.unchanged, samples.stat),
    });
    reportRatio({
      benchmark: 'hub-install',
      comparison: 'lock check all re-hashed / stat',
      ratio: pairedRatio(samples.allTouched, samples.stat),
    });
    reportRatio({
      benchmark: 'hub-install',
      comparison: 'locked get / get',
      ratio: pairedRatio(samples.lockedGet, samples.get),
    });
  } finally {
    await rm(project, { recursive: true, force: true });
  }
}
