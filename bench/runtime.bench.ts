// Warm per-run overhead of the runtimes over the physical floor: a bare spawn of the same program
// (local) and a bare bwrap with the same mounts (sandbox). Medians over N runs, printed as ratios.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bubblewrapArguments } from '../src/workspace/runtimes/bubblewrap-arguments.js';
import { LocalRuntime } from '../src/workspace/runtimes/local-runtime.js';
import { SandboxRuntime } from '../src/workspace/runtimes/sandbox-runtime.js';
import { detectSandboxSupport } from '../src/workspace/runtimes/sandbox-support.js';
import type { RuntimeCommand, WorkspaceRuntime } from '../src/workspace/runtime-types.js';
import { medianTime } from './bench-support.js';

const RUNS = Number(process.env.RUNTIME_BENCH_RUNS ?? 25);
const WARMUP = 3;

const medianMs = (task: () => Promise<unknown>) => medianTime(task, RUNS, WARMUP);

function bareSpawn(file: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
}

function runTrue(runtime: WorkspaceRuntime, workspace: string): () => Promise<unknown> {
  const command: RuntimeCommand = { workspaceRoot: workspace, cwd: workspace, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 30_000, maxOutputBytes: 65_536, argv: ['true'] };
  return () => runtime.run(command);
}

const row = (label: string, ms: number, floor: number) =>
  console.log(`${label.padEnd(54)} ${ms.toFixed(2).padStart(8)} ms   ${(ms / floor).toFixed(2).padStart(5)}x floor`);

export async function run(): Promise<void> {
  const workspace = mkdtempSync(join(tmpdir(), 'skillbox-bench-runtime-'));
  const env = { PATH: '/usr/bin:/bin' };
  try {
    console.log(`median of ${RUNS} warm runs of \`true\` (after ${WARMUP} warm-up runs)`);
    const spawnFloor = await medianMs(() => bareSpawn('true', [], env));
    row('floor: child_process.spawn("true")', spawnFloor, spawnFloor);
    row('LocalRuntime argv ["true"]', await medianMs(runTrue(new LocalRuntime(), workspace)), spawnFloor);
    const support = detectSandboxSupport();
    if (!support.available) {
      console.log(`sandbox: skipped (${support.reason})`);
      return;
    }
    const bareArgs = [...bubblewrapArguments({ workspace: { root: workspace, cwd: '/workspace' }, network: false, readOnlyPaths: [] }), 'true'];
    const bwrapFloor = await medianMs(() => bareSpawn(support.bubblewrapPath, bareArgs, env));
    row('floor: bare bwrap … true (same mounts)', bwrapFloor, bwrapFloor);
    row(`SandboxRuntime argv ["true"] (process cap: ${support.processLimit})`, await medianMs(runTrue(new SandboxRuntime(), workspace)), bwrapFloor);
    row('SandboxRuntime, no process cap', await medianMs(runTrue(new SandboxRuntime({ maxProcesses: null }), workspace)), bwrapFloor);
    row('SandboxRuntime, no limits at all', await medianMs(runTrue(new SandboxRuntime({ maxProcesses: null, maxMemoryBytes: null, maxFileSizeBytes: null }), workspace)), bwrapFloor);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
