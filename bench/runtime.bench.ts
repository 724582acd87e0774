// Warm per-run overhead of the runtimes over the physical floor: a bare spawn of the same program
// (local) and a bare bwrap with the same mounts (sandbox). Medians over N runs, printed as ratios.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { bubblewrapArguments } from '../src/runtime/bubblewrap-arguments.js';
import { findExecutable, SYSTEM_PATH } from '../src/runtime/find-executable.js';
import { LocalRuntime } from '../src/runtime/local-runtime.js';
import type { RuntimeCommand, WorkspaceRuntime } from '../src/runtime/runtime-types.js';
import { createPrelude, preludeArguments } from '../src/runtime/sandbox-prelude.js';
import { findPreludeProgram } from '../src/runtime/sandbox-prelude-program.js';
import { SANDBOX_DEFAULT_LIMITS, SandboxRuntime } from '../src/runtime/sandbox-runtime.js';
import { detectSandboxSupport } from '../src/runtime/sandbox-support.js';
import {
  bareSpawn,
  baselineLabel,
  formatSpread,
  importBaseline,
  interleavedMedians,
  interleavedTimes,
  median,
  packageVersion,
  pairedRatio,
  reportRatio,
  type Spread,
  spreadOf,
} from './bench-support.js';

const RUNS = Number(process.env.RUNTIME_BENCH_RUNS ?? 25);
/**
 * Rounds of the goal's pair alone (bare bwrap against SandboxRuntime with every limit, and the
 * baseline's where one is given), after the table: a few cases taking turns many times resolve a
 * difference of a few ms that the table's 8 quick rounds of eleven cases cannot.
 */
const GOAL_RUNS = Number(process.env.RUNTIME_BENCH_GOAL_RUNS ?? RUNS * 5);
const WARMUP = 3;
/**
 * Idle time before each call of the goal's pair: an agent's runs come between model steps, and
 * the kernel's first cgroup move after a quiet spell of more than about one RCU grace period
 * waits for one (docs/runtimes.md). Back to back, each run would find the lock the last one
 * left warm and the figure would flatter every runtime that moves a process.
 */
const GOAL_PAUSE_MS = 30;

function runTrue(runtime: WorkspaceRuntime, workspace: string): () => Promise<unknown> {
  const command: RuntimeCommand = {
    workspaceRoot: workspace,
    cwd: workspace,
    env: { PATH: '/usr/bin:/bin' },
    timeoutMs: 30_000,
    maxOutputBytes: 65_536,
    argv: ['true'],
  };
  return () => runtime.run(command);
}

/**
 * CPU time so far, in ms: this process's own, and that of every child it waited for (their own
 * waited-for children included: bwrap waits for the sandbox, the prelude for the command). Under
 * load, wall times of a few ms drown in scheduling delays; CPU time grows far less with load, so
 * it shows what each case costs even on a busy host. /proc/self/stat counts children in clock
 * ticks, exact over many runs.
 */
function cpuMilliseconds(): { own: number; children: number } {
  const usage = process.cpuUsage();
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  // cutime and cstime are fields 16 and 17 of the whole line, 14 and 15 after the command name.
  const ticks = Number(fields[13]) + Number(fields[14]);
  return { own: (usage.user + usage.system) / 1000, children: (ticks * 1000) / CLOCK_TICKS_PER_SECOND };
}
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time one case took over its calls; this process's own per call as well, for a spread. */
interface CpuTotals {
  own: number;
  children: number;
  calls: number;
  ownPerCall: number[];
}

/**
 * Each task wrapped to add its CPU time (own and children's) per call to `totals`. Children's time
 * comes in 10 ms clock ticks, so only its total over many calls means anything; this process's
 * own is exact per call.
 */
function countingCpu<Name extends string>(
  tasks: Record<Name, () => Promise<unknown>>,
  totals: Record<string, CpuTotals>,
): Record<Name, () => Promise<unknown>> {
  return Object.fromEntries(
    Object.entries(tasks).map(([name, task]) => [
      name,
      async () => {
        const before = cpuMilliseconds();
        await (task as () => Promise<unknown>)();
        const after = cpuMilliseconds();
        const total = (totals[name] ??= { own: 0, children: 0, calls: 0, ownPerCall: [] });
        total.own += after.own - before.own;
        total.ownPerCall.push(after.own - before.own);
        total.children += after.children - before.children;
        total.calls += 1;
      },
    ]),
  ) as Record<Name, () => Promise<unknown>>;
}

const row = (label: string, ms: number, floor: number) =>
  console.log(`${label.padEnd(54)} ${ms.toFixed(2).padStart(8)} ms   ${(ms / floor).toFixed(2).padStart(5)}x floor`);

/**
 * bwrap with the options SandboxRuntime adds to the mounts (the filter and the options on pipes,
 * `--as-pid-1`) running `true` directly: what is left between it and the runtime is the prelude
 * and the cgroup.
 */
function bareHardenedBubblewrap(
  bubblewrapPath: string,
  mounts: readonly string[],
  filter: Buffer,
  env: Record<string, string>,
  prelude: readonly string[] = [],
): Promise<void> {
  return new Promise((resolve, reject) => {
    const options = [...mounts, '--as-pid-1', '--seccomp', '4'].map((option) => `${option}\0`).join('');
    const child = spawn(bubblewrapPath, ['--args', '3', '--', ...prelude, '/usr/bin/true'], {
      env,
      stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
    });
    (child.stdio[3] as Writable).end(options);
    (child.stdio[4] as Writable).end(filter);
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
}

/**
 * Anthropic's sandbox-runtime (the npm peer that does the same job: bubblewrap on Linux, no network
 * unless allowed, writes only where allowed) running `true` with the workspace writable and no
 * network: its wrapped command line run by bash, as its README does. Undefined, with the reason
 * printed, where it cannot run (it needs ripgrep and socat on the host).
 */
async function sandboxRuntimePeer(
  workspace: string,
): Promise<{ run: () => Promise<void>; close: () => Promise<void> } | undefined> {
  const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
  const { errors } = SandboxManager.checkDependencies();
  if (errors.length > 0) {
    console.log(`@anthropic-ai/sandbox-runtime: not run (${errors.join(', ')})`);
    return undefined;
  }
  await SandboxManager.initialize({
    network: { allowedDomains: [], deniedDomains: [] },
    filesystem: { denyRead: [], allowWrite: [workspace], denyWrite: [] },
  });
  return {
    run: async () => {
      const wrapped = await SandboxManager.wrapWithSandbox('true');
      await bareSpawn('/bin/bash', ['-c', wrapped], { PATH: '/usr/bin:/bin' });
    },
    close: () => SandboxManager.reset(),
  };
}

/** Median and middle half of `values`, in ms. */
function spreadText(values: readonly number[]): string {
  return formatSpread(spreadOf(values), 1, ' ms');
}

/**
 * The goal's figure: bare bwrap (the table's floor) and SandboxRuntime with every limit taking
 * turns GOAL_RUNS times, and the baseline's runtime with them when one is given. Printed as the
 * median of the per-round differences of wall time (load that drifts between rounds cancels in
 * each) and of this process's CPU time (exact per call, and far steadier under load: the work
 * Node does for a run). The children's CPU is printed as the kernel accounts it to this process,
 * not as a difference: it counts the sandbox's namespace teardown only where a waited-for process
 * does it, which `--as-pid-1` moves there (docs/decisions/fast-at-any-size-measurements.md), so it is not the wall cost.
 */
async function goalPair(
  bubblewrapPath: string,
  bareArgs: readonly string[],
  env: Record<string, string>,
  workspace: string,
  BaselineRuntime: (new () => WorkspaceRuntime) | undefined,
): Promise<{ ratio: Spread; floorMedian: number; overBaseline: Spread | undefined }> {
  const cpu: Record<string, CpuTotals> = {};
  const samples = await interleavedTimes(
    countingCpu(
      {
        floor: () => bareSpawn(bubblewrapPath, bareArgs, env),
        capped: runTrue(new SandboxRuntime(), workspace),
        // A no-op without a baseline (its figures are then left out).
        baselineCapped: BaselineRuntime ? runTrue(new BaselineRuntime(), workspace) : async () => {},
      },
      cpu,
    ),
    GOAL_RUNS,
    WARMUP,
    GOAL_PAUSE_MS,
  );
  const floorCpu = cpu.floor as CpuTotals;
  const childrenPerRun = (total: CpuTotals) => (total.children / total.calls).toFixed(1);
  const overFloor = (name: 'capped' | 'baselineCapped', label: string) => {
    const total = cpu[name] as CpuTotals;
    const wall = samples[name].map((time, index) => time - (samples.floor[index] as number));
    const own = total.ownPerCall.map((time, index) => time - (floorCpu.ownPerCall[index] as number));
    console.log(
      `${label} over bare bwrap, ${GOAL_RUNS} rounds, ${GOAL_PAUSE_MS} ms idle before each call: wall ${spreadText(wall)}, this process's CPU ${spreadText(own)} (children's CPU ${childrenPerRun(total)} ms per run)`,
    );
  };
  console.log(
    `goal (<= bare bwrap + 5 ms): bare bwrap ${spreadText(samples.floor)} wall, this process's CPU ${spreadText(floorCpu.ownPerCall)} (children's ${childrenPerRun(floorCpu)} ms per run)`,
  );
  overFloor('capped', 'SandboxRuntime, every limit,');
  if (BaselineRuntime) overFloor('baselineCapped', `${baselineLabel()}: SandboxRuntime, every limit,`);
  return {
    ratio: pairedRatio(samples.capped, samples.floor),
    floorMedian: median(samples.floor),
    overBaseline: BaselineRuntime ? pairedRatio(samples.capped, samples.baselineCapped) : undefined,
  };
}

export async function run(): Promise<void> {
  const workspace = mkdtempSync(join(tmpdir(), 'skillbox-bench-runtime-'));
  const env = { PATH: '/usr/bin:/bin' };
  try {
    // The cases take turns call by call, so load from other work on the machine weighs on each alike
    // and the ratios to the floor hold even when the absolute figures drift.
    console.log(
      `median of ${RUNS} warm runs of \`true\` (after ${WARMUP} warm-up runs), the cases of each table taking turns`,
    );
    const local = await interleavedMedians(
      { floor: () => bareSpawn('true', [], env), local: runTrue(new LocalRuntime(), workspace) },
      RUNS,
      WARMUP,
    );
    row('floor: child_process.spawn("true")', local.floor, local.floor);
    row('LocalRuntime argv ["true"]', local.local, local.floor);
    const support = detectSandboxSupport();
    if (!support.available) {
      console.log(`sandbox: skipped (${support.reason})`);
      return;
    }
    const mounts = bubblewrapArguments({
      workspace: { root: workspace, cwd: '/workspace' },
      network: false,
      readOnlyPaths: [],
    });
    const bareArgs = [...mounts, 'true'];
    // The preludes alone, with every limit, on the hardened bwrap: what each costs without Node's share.
    const bashPath = findExecutable('bash', SYSTEM_PATH) as string;
    const dashPath = findExecutable('dash', SYSTEM_PATH);
    const programPath = findPreludeProgram();
    const shellPrelude = preludeArguments(createPrelude(SANDBOX_DEFAULT_LIMITS, bashPath, dashPath), env);
    const compiledPrelude =
      programPath === undefined
        ? undefined
        : preludeArguments(createPrelude(SANDBOX_DEFAULT_LIMITS, bashPath, dashPath, programPath), env);
    const compiledMounts = bubblewrapArguments({
      workspace: { root: workspace, cwd: '/workspace' },
      network: false,
      readOnlyPaths: [],
      ...(programPath === undefined ? {} : { preludeProgram: programPath }),
    });
    const peer = await sandboxRuntimePeer(workspace);
    // `--baseline=<commit>`: the same runtime built from that commit's src/, timed in the same rounds.
    const baseline =
      await importBaseline<typeof import('../src/runtime/sandbox-runtime.js')>('runtime/sandbox-runtime.ts');
    const cpu: Record<string, CpuTotals> = {};
    const samples = await interleavedTimes(
      countingCpu(
        {
          // No-ops without a baseline (their rows are then left out).
          baselineCapped: baseline ? runTrue(new baseline.SandboxRuntime(), workspace) : async () => {},
          baselineUnlimited: baseline
            ? runTrue(
                new baseline.SandboxRuntime({
                  maxProcesses: null,
                  maxMemoryBytes: null,
                  maxFileSizeBytes: null,
                  maxCpus: null,
                }),
                workspace,
              )
            : async () => {},
          // A no-op where the peer cannot run (its row is then left out).
          peer: peer ? peer.run : async () => {},
          floor: () => bareSpawn(support.bubblewrapPath, bareArgs, env),
          hardened: () => bareHardenedBubblewrap(support.bubblewrapPath, mounts, support.seccompFilter, env),
          shellPrelude: () =>
            bareHardenedBubblewrap(support.bubblewrapPath, mounts, support.seccompFilter, env, shellPrelude),
          // A no-op where the compiled prelude is not built (its row is then left out).
          compiledPrelude: compiledPrelude
            ? () =>
                bareHardenedBubblewrap(
                  support.bubblewrapPath,
                  compiledMounts,
                  support.seccompFilter,
                  env,
                  compiledPrelude,
                )
            : async () => {},
          capped: runTrue(new SandboxRuntime(), workspace),
          uncapped: runTrue(new SandboxRuntime({ maxProcesses: null }), workspace),
          unlimited: runTrue(
            new SandboxRuntime({ maxProcesses: null, maxMemoryBytes: null, maxFileSizeBytes: null, maxCpus: null }),
            workspace,
          ),
        },
        cpu,
      ),
      RUNS,
      WARMUP,
    );
    const sandbox = Object.fromEntries(
      Object.entries(samples).map(([name, times]) => [name, median(times as number[])]),
    ) as Record<keyof typeof samples, number>;
    row('floor: bare bwrap … true (same mounts)', sandbox.floor, sandbox.floor);
    row('bare bwrap + seccomp, --args, --as-pid-1 (no prelude)', sandbox.hardened, sandbox.floor);
    row(
      `  + ${dashPath ? 'dash' : 'bash'} prelude, every limit (no cgroup, no Node work)`,
      sandbox.shellPrelude,
      sandbox.floor,
    );
    if (compiledPrelude)
      row('  + compiled prelude, every limit (no cgroup, no Node work)', sandbox.compiledPrelude, sandbox.floor);
    else console.log('compiled prelude: not built (npm run build:prelude), its row is left out');
    row(`SandboxRuntime argv ["true"] (process cap: ${support.processLimit})`, sandbox.capped, sandbox.floor);
    row('SandboxRuntime, no process cap', sandbox.uncapped, sandbox.floor);
    row('SandboxRuntime, no limits at all', sandbox.unlimited, sandbox.floor);
    if (baseline) {
      row(`${baselineLabel()}: SandboxRuntime, every limit`, sandbox.baselineCapped, sandbox.floor);
      row(`${baselineLabel()}: SandboxRuntime, no limits at all`, sandbox.baselineUnlimited, sandbox.floor);
    }
    if (peer) {
      row(
        `@anthropic-ai/sandbox-runtime ${packageVersion('@anthropic-ai/sandbox-runtime')} (wrapWithSandbox, bash -c)`,
        sandbox.peer,
        sandbox.floor,
      );
      await peer.close();
    }
    console.log('CPU time per run (ms), this process / its children (bwrap, prelude, command):');
    for (const [name, total] of Object.entries(cpu))
      if (total.own + total.children > 0)
        console.log(
          `  ${name.padEnd(18)} ${(total.own / total.calls).toFixed(2).padStart(6)} / ${(total.children / total.calls).toFixed(2).padStart(6)}`,
        );
    const goal = await goalPair(support.bubblewrapPath, bareArgs, env, workspace, baseline?.SandboxRuntime);
    reportRatio({
      benchmark: 'runtime',
      comparison: 'SandboxRuntime `true`, every limit / bare bwrap',
      ratio: goal.ratio,
      goal: `<= bare bwrap + 5 ms (${((goal.floorMedian + 5) / goal.floorMedian).toFixed(2)} here)`,
    });
    if (baseline)
      reportRatio({
        benchmark: 'runtime',
        comparison: `SandboxRuntime \`true\`, every limit / ${baselineLabel()}`,
        ratio: goal.overBaseline as Spread,
      });
    if (baseline)
      reportRatio({
        benchmark: 'runtime',
        comparison: `SandboxRuntime \`true\`, no limits / ${baselineLabel()}`,
        ratio: pairedRatio(samples.unlimited, samples.baselineUnlimited),
      });
    if (peer)
      reportRatio({
        benchmark: 'runtime',
        comparison: '@anthropic-ai/sandbox-runtime `true` / bare bwrap',
        ratio: pairedRatio(samples.peer, samples.floor),
      });
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
