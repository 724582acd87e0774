// Staging a 50 MB skill into a workspace (the same size with --quick, in fewer rounds): the first copy against the physical
// floor (cp -r of the same folder, and Node's fs.cp), and an unchanged re-stage (the manifest of
// sizes, times and inodes compared, no byte read) against a bare scan of the folder and against
// hashing every byte, the simple alternative. The tasks take turns, their order rotating each
// round, and each ratio is the median of per-round ratios. With --baseline=<ref> the staging code
// of that commit takes its turn too. Figures only.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FsSkillRepository } from '../src/repository/fs-skill-repository.js';
import { createMemorySkillRepository } from '../src/repository/memory-skill-repository.js';
import { LocalRuntime } from '../src/runtime/local-runtime.js';
import { scanFolder } from '../src/workspace/folder-snapshot.js';
import { createWorkspaceManager } from '../src/workspace/workspace-manager.js';
import {
  baselineLabel,
  formatSpread,
  importBaseline,
  interleavedTimes,
  median,
  pairedRatio,
  reportRatio,
  spreadOf,
} from './bench-support.js';

const megabytes = Number(process.env.STAGING_BENCH_MB ?? 50);
const rounds = Number(process.env.STAGING_BENCH_ROUNDS ?? 7);

type Stager = (session: string) => Promise<unknown>;

/** A workspace manager over `skillsRoot` built from one copy of the source (this checkout's or the baseline's). */
async function stagerFrom(
  modules: {
    FsSkillRepository: typeof FsSkillRepository;
    LocalRuntime: typeof LocalRuntime;
    createWorkspaceManager: typeof createWorkspaceManager;
  },
  skillsRoot: string,
  baseDir: string,
): Promise<{ stage: Stager; cleanup: (session: string) => Promise<unknown> }> {
  const repository = await modules.FsSkillRepository.open({ roots: [skillsRoot] });
  const workspaces = modules.createWorkspaceManager({
    runtime: new modules.LocalRuntime(),
    repository,
    baseDir,
    artifacts: false,
  });
  return {
    stage: async (session) => (await workspaces.workspace(session)).stageSkill('big'),
    cleanup: (session) => workspaces.cleanup(session),
  };
}

/** sha256 over every file's bytes: what deciding "unchanged" by content would cost on every stage. */
async function hashEveryByte(skillDir: string): Promise<string> {
  const hash = createHash('sha256');
  for (const entry of (await scanFolder(skillDir)).entries) {
    if (entry.kind !== 'file') continue;
    hash.update(entry.path);
    hash.update(await readFile(path.join(skillDir, ...entry.path.split('/'))));
  }
  return hash.digest('hex');
}

export async function run(): Promise<void> {
  const temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-bench-staging-'));
  try {
    const skillsRoot = path.join(temporary, 'skills');
    const skillDir = path.join(skillsRoot, 'big');
    await mkdir(path.join(skillDir, 'data'), { recursive: true });
    await writeFile(
      path.join(skillDir, 'SKILL.md'),
      '---\nname: big\ndescription: A large skill for the staging benchmark.\n---\nBody\n',
    );
    // 1 MiB files plus a tail of small ones: the shape of a skill with models or datasets and scripts.
    for (let index = 0; index < megabytes; index += 1)
      await writeFile(path.join(skillDir, 'data', `blob-${index}.bin`), randomBytes(1024 * 1024));
    for (let index = 0; index < 200; index += 1)
      await writeFile(path.join(skillDir, `script-${index}.py`), `print(${index})\n`);

    const current = await stagerFrom(
      { FsSkillRepository, LocalRuntime, createWorkspaceManager },
      skillsRoot,
      path.join(temporary, 'ws'),
    );
    const label = baselineLabel();
    const baselineModules =
      label === undefined
        ? undefined
        : {
            FsSkillRepository: (await importBaseline<typeof import('../src/repository/fs-skill-repository.js')>(
              'repository/fs-skill-repository.ts',
            ))!.FsSkillRepository,
            LocalRuntime: (await importBaseline<typeof import('../src/runtime/local-runtime.js')>(
              'runtime/local-runtime.ts',
            ))!.LocalRuntime,
            createWorkspaceManager: (await importBaseline<typeof import('../src/workspace/workspace-manager.js')>(
              'workspace/workspace-manager.ts',
            ))!.createWorkspaceManager,
          };
    const baseline =
      baselineModules === undefined
        ? undefined
        : await stagerFrom(baselineModules, skillsRoot, path.join(temporary, 'ws-baseline'));

    // Each task copies into a fresh place, removed after its turn, outside the timed part.
    let copies = 0;
    const tasks: Record<string, () => Promise<() => Promise<unknown>>> = {
      'first stage': async () => {
        const session = `first-${(copies += 1)}`;
        await current.stage(session);
        return () => current.cleanup(session);
      },
      'cp -r': async () => {
        const target = path.join(temporary, `cp-${(copies += 1)}`);
        execFileSync('cp', ['-r', skillDir, target]);
        return () => rm(target, { recursive: true });
      },
      'fs.cp': async () => {
        const target = path.join(temporary, `node-cp-${(copies += 1)}`);
        await cp(skillDir, target, { recursive: true });
        return () => rm(target, { recursive: true });
      },
    };
    if (baseline !== undefined) {
      tasks[label!] = async () => {
        const session = `baseline-${(copies += 1)}`;
        await baseline.stage(session);
        return () => baseline.cleanup(session);
      };
    }
    const names = Object.keys(tasks);
    const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    // One warm-up round, then `rounds` timed ones; the order rotates so no task always follows another.
    for (let round = 0; round <= rounds; round += 1) {
      for (let turn = 0; turn < names.length; turn += 1) {
        const name = names[(round + turn) % names.length]!;
        const started = performance.now();
        const cleanup = await tasks[name]!();
        if (round > 0) times[name]!.push(performance.now() - started);
        await cleanup();
      }
    }

    const warmSession = 'warm';
    await current.stage(warmSession);
    const unchangedTimes = await interleavedTimes(
      {
        'unchanged re-stage': () => current.stage(warmSession),
        'bare folder scan': () => scanFolder(skillDir),
      },
      rounds * 4,
    );
    const fullDigest = await interleavedTimes({ 'sha256 over every byte': () => hashEveryByte(skillDir) }, rounds);

    const small = createMemorySkillRepository([
      { name: 'tiny', description: 'Tiny.', body: 'b', files: { 'a.py': 'print(1)\n' } },
    ]);
    const smallWorkspaces = createWorkspaceManager({
      runtime: new LocalRuntime(),
      repository: small,
      baseDir: path.join(temporary, 'ws-small'),
      artifacts: false,
    });
    const smallWorkspace = await smallWorkspaces.workspace('small');
    const tinyStarted = performance.now();
    await smallWorkspace.stageSkill('tiny');
    const tinyFirst = performance.now() - tinyStarted;

    const mb = megabytes + (200 * 10) / 1024 / 1024;
    console.log(
      `skill: ${megabytes} x 1 MiB files + 200 small scripts (~${mb.toFixed(0)} MB); ${rounds} interleaved rounds (unchanged: ${rounds * 4}); ms as median [middle half]`,
    );
    console.log('case                                          | ms                      | vs floor (paired)');
    const row = (name: string, values: number[], versus = '') =>
      console.log(`${name.padEnd(45)} | ${formatSpread(spreadOf(values), 1).padEnd(23)} | ${versus}`);
    const cpTimes = times['cp -r']!;
    const firstVsCp = pairedRatio(times['first stage']!, cpTimes);
    row(
      'first stage (copy + links + metadata)',
      times['first stage']!,
      `${formatSpread(firstVsCp)} of cp -r, ${formatSpread(pairedRatio(times['first stage']!, times['fs.cp']!))} of fs.cp`,
    );
    reportRatio({
      benchmark: 'staging',
      comparison: `first stage (${megabytes} MiB) / cp -r`,
      ratio: firstVsCp,
      goal: '<= 2',
    });
    if (baseline !== undefined) {
      const baselineVsCp = pairedRatio(times[label!]!, cpTimes);
      row(`${label} first stage`, times[label!]!, `${formatSpread(baselineVsCp)} of cp -r`);
      reportRatio({
        benchmark: 'staging',
        comparison: `${label} first stage (${megabytes} MiB) / cp -r`,
        ratio: baselineVsCp,
      });
    }
    row('floor: cp -r (a process of its own)', cpTimes);
    row('peer: node fs.cp recursive', times['fs.cp']!);
    const unchanged = unchangedTimes['unchanged re-stage'];
    const unchangedVsScan = pairedRatio(unchanged, unchangedTimes['bare folder scan']);
    row('unchanged re-stage (manifest compared)', unchanged, `${formatSpread(unchangedVsScan)} of a bare folder scan`);
    reportRatio({ benchmark: 'staging', comparison: 'unchanged re-stage / bare folder scan', ratio: unchangedVsScan });
    row('floor: bare folder scan (lstat of every entry)', unchangedTimes['bare folder scan']);
    const digestMedian = median(fullDigest['sha256 over every byte']);
    row(
      'sha256 over every byte (content check)',
      fullDigest['sha256 over every byte'],
      `unchanged re-stage is ${(median(unchanged) / digestMedian).toFixed(3)}x of it`,
    );
    console.log(`${'first stage of a 1-file skill defined in code'.padEnd(45)} | ${tinyFirst.toFixed(2)}`);
  } finally {
    await rm(temporary, { recursive: true, force: true });
  }
}
