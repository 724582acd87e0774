// Warm per-run overhead of the runtimes over the physical floor: a bare spawn of the same program
// (local) and a bare bwrap with the same mounts (sandbox). Medians over N runs, printed as ratios.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { bubblewrapArguments } from '../src/runtime/bubblewrap-arguments.js';
import { LocalRuntime } from '../src/runtime/local-runtime.js';
import type { RuntimeCommand, WorkspaceRuntime } from '../src/runtime/runtime-types.js';
import { SandboxRuntime } from '../src/runtime/sandbox-runtime.js';
import { detectSandboxSupport } from '../src/runtime/sandbox-support.js';
import { bareSpawn, interleavedMedians } from './bench-support.js';

const RUNS = Number(process.env.RUNTIME_BENCH_RUNS ?? 25);
const WARMUP = 3;

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
): Promise<void> {
  return new Promise((resolve, reject) => {
    const options = [...mounts, '--as-pid-1', '--seccomp', '4'].map((option) => `${option}\0`).join('');
    const child = spawn(bubblewrapPath, ['--args', '3', '--', '/usr/bin/true'], {
      env,
      stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
    });
    (child.stdio[3] as Writable).end(options);
    (child.stdio[4] as Writable).end(filter);
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
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
    const sandbox = await interleavedMedians(
      {
        floor: () => bareSpawn(support.bubblewrapPath, bareArgs, env),
        hardened: () => bareHardenedBubblewrap(support.bubblewrapPath, mounts, support.seccompFilter, env),
        capped: runTrue(new SandboxRuntime(), workspace),
        uncapped: runTrue(new SandboxRuntime({ maxProcesses: null }), workspace),
        unlimited: runTrue(
          new SandboxRuntime({ maxProcesses: null, maxMemoryBytes: null, maxFileSizeBytes: null }),
          workspace,
        ),
      },
      RUNS,
      WARMUP,
    );
    row('floor: bare bwrap … true (same mounts)', sandbox.floor, sandbox.floor);
    row('bare bwrap + seccomp, --args, --as-pid-1 (no prelude)', sandbox.hardened, sandbox.floor);
    row(`SandboxRuntime argv ["true"] (process cap: ${support.processLimit})`, sandbox.capped, sandbox.floor);
    row('SandboxRuntime, no process cap', sandbox.uncapped, sandbox.floor);
    row('SandboxRuntime, no limits at all', sandbox.unlimited, sandbox.floor);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
