// Warm skill_run overhead (staging check, env, run folder, output collection) over a bare spawn
// of the same command from Node (local runtime) and a bare `bwrap ... true` (sandbox runtime), over
// the runtime alone running the same command in the same workspace, and over the physical floor:
// the same command started from C with posix_spawn (spawn-floor.c), which does not copy the
// starting process as Node's spawn does. The first run of a session (workspace creation +
// staging) is reported apart. Medians; figures only, nothing fails on a time.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { FsSkillRepository } from '../src/repository/fs-skill-repository.js';
import { bubblewrapArguments } from '../src/runtime/bubblewrap-arguments.js';
import { LocalRuntime } from '../src/runtime/local-runtime.js';
import type { WorkspaceRuntime } from '../src/runtime/runtime-types.js';
import { SandboxRuntime } from '../src/runtime/sandbox-runtime.js';
import { detectSandboxSupport } from '../src/runtime/sandbox-support.js';
import { createInMemoryStateView } from '../src/state/in-memory-state-view.js';
import { loadedKey } from '../src/state/state-keys.js';
import type { ToolDefinition } from '../src/tools/types.js';
import { createExecutionTools } from '../src/workspace/tools/execution-tools.js';
import { createWorkspaceManager } from '../src/workspace/workspace-manager.js';
import { bareSpawn, interleavedTimes, median, pairedRatio, reportRatio, spreadOf } from './bench-support.js';

const runs = Number(process.env.SKILL_RUN_BENCH_RUNS ?? 20);

const floorEnv = { PATH: '/usr/bin:/bin' };

async function measure(
  label: string,
  runtime: WorkspaceRuntime,
  floorArgv: readonly [string, ...string[]],
  floorLabel: string,
  skillsRoot: string,
  baseDir: string,
  spawnFloor: string | undefined,
): Promise<void> {
  const floor = () => bareSpawn(floorArgv[0], floorArgv.slice(1), floorEnv);
  const repository = await FsSkillRepository.open({ roots: [skillsRoot] });
  const workspaces = createWorkspaceManager({ runtime, repository, baseDir, artifacts: false });
  const [skillRun] = createExecutionTools({ workspaces }) as [ToolDefinition];
  const context = (sessionId: string) => ({
    sessionId,
    agentName: 'bench',
    state: createInMemoryStateView({ [loadedKey('bench', 'bench-skill')]: '1' }),
  });
  const call = (sessionId: string, input: Record<string, unknown>) =>
    skillRun.execute(skillRun.inputSchema.parse({ skill: 'bench-skill', ...input }), context(sessionId));

  const warm = await workspaces.workspace('warm');
  const times = await interleavedTimes(
    {
      floor,
      // The runtime alone, same command and workspace: what skill_run adds on top is the layer's own cost.
      runtime: () =>
        runtime.run({
          command: 'true',
          workspaceRoot: warm.root,
          cwd: warm.root,
          env: { PATH: '/usr/bin:/bin' },
          timeoutMs: 30_000,
          maxOutputBytes: 65_536,
        }),
      warmTrue: () => call('warm', { command: 'true', output_files: [] }),
      warmWithOutput: () => call('warm', { command: 'echo 42 > out/answer.txt' }),
    },
    runs,
  );
  const [floorMs, runtimeMs, warmTrue, warmWithOutput] = [
    times.floor,
    times.runtime,
    times.warmTrue,
    times.warmWithOutput,
  ].map(median) as [number, number, number, number];
  reportRatio({
    benchmark: 'skill-run',
    comparison: `${label}: warm skill_run true / ${floorLabel}`,
    ratio: pairedRatio(times.warmTrue, times.floor),
  });
  const firstRuns: number[] = [];
  for (let index = 0; index < Math.max(5, Math.floor(runs / 4)); index += 1) {
    const started = performance.now();
    await call(`first-${index}`, { command: 'true', output_files: [] });
    firstRuns.push(performance.now() - started);
  }
  const first = median(firstRuns);
  console.log(
    `${label} | ${floorLabel}: ${floorMs.toFixed(2)} ms | runtime.run alone: ${runtimeMs.toFixed(2)} ms (${(runtimeMs / floorMs).toFixed(2)}x) | warm skill_run true: ${warmTrue.toFixed(2)} ms (${(warmTrue / floorMs).toFixed(2)}x floor, ${(warmTrue / runtimeMs).toFixed(2)}x runtime, +${(warmTrue - floorMs).toFixed(2)} ms) | warm with an out/ file collected: ${warmWithOutput.toFixed(2)} ms (${(warmWithOutput / floorMs).toFixed(2)}x floor, ${(warmWithOutput / runtimeMs).toFixed(2)}x runtime) | first run of a session (workspace + staging): ${first.toFixed(2)} ms (${(first / floorMs).toFixed(2)}x)`,
  );
  // The same command started by a program that does not copy itself to start it (spawn-floor.c),
  // right after: how far Node's own spawn is from the machine's floor.
  if (spawnFloor !== undefined) {
    const physicalMs = Number(execFileSync(spawnFloor, [String(runs * 2), ...floorArgv], { encoding: 'utf8' }));
    console.log(
      `${label} | physical floor (posix_spawn from C, output read): ${physicalMs.toFixed(2)} ms | Node's spawn of it: ${(floorMs / physicalMs).toFixed(2)}x | runtime.run alone: ${(runtimeMs / physicalMs).toFixed(2)}x | warm skill_run true: ${(warmTrue / physicalMs).toFixed(2)}x`,
    );
    reportRatio({
      benchmark: 'skill-run',
      comparison: `${label}: warm skill_run true / physical floor (posix_spawn from C)`,
      ratio: spreadOf(times.warmTrue.map((sample) => sample / physicalMs)),
    });
  }
}

/** bench/spawn-floor.c built into `folder`; undefined (with a line saying so) without a C compiler. */
function buildSpawnFloor(folder: string): string | undefined {
  const program = path.join(folder, 'spawn-floor');
  const source = fileURLToPath(new URL('./spawn-floor.c', import.meta.url));
  for (const compiler of [process.env.CC ?? 'cc', 'gcc']) {
    try {
      execFileSync(compiler, ['-O2', '-o', program, source], { stdio: 'ignore' });
      return program;
    } catch {
      // the next compiler, or none
    }
  }
  console.log('physical floor: n/a (no C compiler to build bench/spawn-floor.c)');
  return undefined;
}

export async function run(): Promise<void> {
  const temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-bench-run-'));
  try {
    const skillDir = path.join(temporary, 'skills', 'bench-skill');
    await mkdir(path.join(skillDir, 'scripts'), { recursive: true });
    await writeFile(
      path.join(skillDir, 'SKILL.md'),
      '---\nname: bench-skill\ndescription: Benchmark skill.\n---\nRun true.\n',
    );
    for (let index = 0; index < 20; index += 1)
      await writeFile(path.join(skillDir, 'scripts', `s${index}.py`), `print(${index})\n`);
    console.log(
      `medians of ${runs} runs, the cases taking turns; the command is \`true\` so the figures are pure overhead`,
    );
    const spawnFloor = buildSpawnFloor(temporary);
    await measure(
      'local',
      new LocalRuntime(),
      ['/bin/bash', '-c', 'true'],
      'bare spawn of bash -c true',
      path.join(temporary, 'skills'),
      path.join(temporary, 'ws-local'),
      spawnFloor,
    );
    const support = detectSandboxSupport();
    if (!support.available) {
      console.log(`sandbox | n/a (${support.reason})`);
      return;
    }
    const floorWorkspace = path.join(temporary, 'floor-ws');
    await mkdir(floorWorkspace);
    const bwrapArgv: [string, ...string[]] = [
      support.bubblewrapPath,
      ...bubblewrapArguments({
        workspace: { root: floorWorkspace, cwd: '/workspace' },
        network: false,
        readOnlyPaths: [],
      }),
      '/bin/true',
    ];
    await measure(
      'sandbox',
      new SandboxRuntime(),
      bwrapArgv,
      'bare bwrap (same mounts) true',
      path.join(temporary, 'skills'),
      path.join(temporary, 'ws-sandbox'),
      spawnFloor,
    );
  } finally {
    await rm(temporary, { recursive: true, force: true });
  }
}
