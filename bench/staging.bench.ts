// Staging a 50 MB skill into a workspace: the first copy against the physical floor (cp -r of the
// same folder, and Node's fs.cp), and an unchanged re-stage (sizes and times compared, no byte read)
// against hashing every byte on every call (sha256), the simple alternative. Figures only.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { FsSkillRepository } from '../src/repository/fs-skill-repository.js';
import { createMemorySkillRepository } from '../src/repository/memory-skill-repository.js';
import { LocalRuntime } from '../src/runtime/local-runtime.js';
import { digestFolder, scanFolder } from '../src/workspace/folder-snapshot.js';
import { createWorkspaceManager } from '../src/workspace/workspace-manager.js';
import { median } from './bench-support.js';

const megabytes = Number(process.env.STAGING_BENCH_MB ?? 50);
const rounds = Number(process.env.STAGING_BENCH_ROUNDS ?? 5);

async function timed(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await task();
  return performance.now() - started;
}

const ratio = (value: number, base: number) => (base === 0 ? 'n/a' : `${(value / base).toFixed(2)}x`);

export async function run(): Promise<void> {
  const temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-bench-staging-'));
  try {
    const skillDir = path.join(temporary, 'skills', 'big');
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
    const repository = await FsSkillRepository.open({ roots: [path.join(temporary, 'skills')] });
    const workspaces = createWorkspaceManager({
      runtime: new LocalRuntime(),
      repository,
      baseDir: path.join(temporary, 'ws'),
      artifacts: false,
    });

    const first: number[] = [];
    const cpShell: number[] = [];
    const nodeCp: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const workspace = await workspaces.workspace(`first-${round}`);
      first.push(await timed(() => workspace.stageSkill('big')));
      const target = path.join(temporary, `cp-${round}`);
      cpShell.push(await timed(async () => execFileSync('cp', ['-r', skillDir, target])));
      nodeCp.push(await timed(() => cp(skillDir, path.join(temporary, `node-cp-${round}`), { recursive: true })));
      await rm(target, { recursive: true });
      await rm(path.join(temporary, `node-cp-${round}`), { recursive: true });
      await workspaces.cleanup(`first-${round}`);
    }

    const warm = await workspaces.workspace('warm');
    await warm.stageSkill('big');
    const unchanged: number[] = [];
    const fullDigest: number[] = [];
    const scanOnly: number[] = [];
    for (let round = 0; round < rounds * 4; round += 1) {
      unchanged.push(await timed(() => warm.stageSkill('big')));
      scanOnly.push(await timed(() => scanFolder(skillDir)));
    }
    for (let round = 0; round < rounds; round += 1) {
      fullDigest.push(await timed(async () => digestFolder(skillDir, (await scanFolder(skillDir)).entries)));
    }

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
    const tinyFirst = await timed(() => smallWorkspace.stageSkill('tiny'));

    const mb = megabytes + (200 * 10) / 1024 / 1024;
    console.log(
      `skill: ${megabytes} x 1 MiB files + 200 small scripts (~${mb.toFixed(0)} MB); medians of ${rounds} rounds (unchanged: ${rounds * 4})`,
    );
    console.log('case | ms | vs floor');
    console.log(
      `first stage (copy + links + metadata) | ${median(first).toFixed(1)} | ${ratio(median(first), median(cpShell))} of cp -r, ${ratio(median(first), median(nodeCp))} of fs.cp`,
    );
    console.log(`floor: cp -r | ${median(cpShell).toFixed(1)} |`);
    console.log(`peer: node fs.cp recursive | ${median(nodeCp).toFixed(1)} |`);
    console.log(
      `unchanged re-stage (manifest of sizes+mtimes) | ${median(unchanged).toFixed(2)} | ${ratio(median(unchanged), median(scanOnly))} of a bare folder scan`,
    );
    console.log(`floor: bare folder scan (lstat of every entry) | ${median(scanOnly).toFixed(2)} |`);
    console.log(
      `seeds' check: sha256 over every byte | ${median(fullDigest).toFixed(1)} | unchanged re-stage is ${ratio(median(unchanged), median(fullDigest))} of it`,
    );
    console.log(`first stage of a 1-file skill defined in code | ${tinyFirst.toFixed(2)} |`);
  } finally {
    await rm(temporary, { recursive: true, force: true });
  }
}
