// The container runtime against the daemon's own CLI on the same containers: a warm exec of `true`
// and of `python3 -c pass` through ContainerRuntime.run against `podman exec` of the same container
// (goal from issue 32: <= 1.1), and the first run of a fresh workspace (volume, container, layout,
// exec) against `podman run --rm` with the same confinement. Then a real skill's scripts
// (examples/skills/python-math) staged through each runtime's files() and run under bubblewrap,
// in the container, and in the container under gVisor when `runsc` is installed. Paired ratios;
// nothing fails on a number. Skipped with a line where no Engine API socket with the image answers.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createContainerRuntime } from '../src/runtime/container/container-runtime.js';
import { WorkspaceContainers } from '../src/runtime/container/workspace-containers.js';
import { findExecutable } from '../src/runtime/find-executable.js';
import type { RuntimeCommand, WorkspaceRuntime } from '../src/runtime/runtime-types.js';
import { SandboxRuntime } from '../src/runtime/sandbox-runtime.js';
import { detectSandboxSupport } from '../src/runtime/sandbox-support.js';
import { bareSpawn, formatSpread, interleavedTimes, pairedRatio, quick, reportRatio } from './bench-support.js';

const socketPath = process.env.SKILLBOX_TEST_CONTAINER_SOCKET ?? '/run/podman/podman.sock';
const image = process.env.SKILLBOX_TEST_CONTAINER_IMAGE ?? 'localhost/skillbox-test:bookworm';
// gVisor through a daemon that honours the OCI runtime asked for: podman 4.3's compatible API does
// not, Docker's does (.ci/dockerd.sh starts one with Debian's runsc registered).
const gvisorSocket =
  process.env.SKILLBOX_BENCH_GVISOR_SOCKET ??
  (existsSync('/run/skillbox-docker.sock') ? '/run/skillbox-docker.sock' : socketPath);
const RUNS = Number(process.env.CONTAINER_BENCH_RUNS ?? (quick ? 3 : 15));
const FIRST_RUNS = Number(process.env.CONTAINER_BENCH_FIRST_RUNS ?? (quick ? 2 : 5));
const hostEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

function engineHasImage(): Promise<boolean> {
  return new Promise((done) => {
    const probe = request({ socketPath, path: `/v1.41/images/${encodeURIComponent(image)}/json` }, (response) => {
      response.resume();
      done(response.statusCode === 200);
    });
    probe.once('error', () => done(false));
    probe.end();
  });
}

/** The confinement the runtime gives, as `podman run` flags, so the first-run comparison is like for like. */
const podmanRunFlags = [
  'run',
  '--rm',
  '--network',
  'none',
  '--read-only',
  '--cap-drop',
  'all',
  '--security-opt',
  'no-new-privileges',
  '--user',
  '65534:65534',
  '--ulimit',
  'nofile=4096:4096',
  '--ulimit',
  'nproc=2048:2048',
  '--memory',
  '512m',
  '--pids-limit',
  '256',
];

export async function run(): Promise<void> {
  if (!(await engineHasImage())) {
    console.log(`container-runtime: skipped (no Engine API with ${image} at ${socketPath})`);
    return;
  }
  const runtime = createContainerRuntime({ image, socketPath });
  const workspace = `/skillbox-bench-${process.pid}`;
  const command = (argv: string[]): RuntimeCommand => ({
    workspaceRoot: workspace,
    cwd: workspace,
    env: { PATH: '/usr/bin:/bin' },
    timeoutMs: 30_000,
    maxOutputBytes: 65_536,
    argv,
  });
  try {
    await runtime.run(command(['true']));
    const container = WorkspaceContainers.baseName(workspace);
    for (const [label, argv] of [
      ['true', ['true']],
      ['python3 -c pass', ['python3', '-c', 'pass']],
    ] as const) {
      const times = await interleavedTimes(
        {
          runtime: () => runtime.run(command([...argv])),
          cli: () => bareSpawn('podman', ['exec', '--user', '65534:65534', container, ...argv], hostEnv),
        },
        RUNS,
      );
      const ratio = pairedRatio(times.runtime, times.cli);
      console.log(`container-runtime: warm exec of ${label}, runtime / podman exec: ${formatSpread(ratio)}`);
      reportRatio({
        benchmark: 'container-runtime',
        comparison: `warm ${label} vs podman exec`,
        ratio,
        goal: '<= 1.1',
      });
    }
    let fresh = 0;
    const first = await interleavedTimes(
      {
        runtime: async () => {
          const name = `${workspace}-first-${(fresh += 1)}`;
          await runtime.run({ ...command(['true']), workspaceRoot: name, cwd: name });
          await runtime.files(name).remove('');
        },
        cli: () => bareSpawn('podman', [...podmanRunFlags, image, 'true'], hostEnv),
      },
      FIRST_RUNS,
      0,
    );
    const firstRatio = pairedRatio(first.runtime, first.cli);
    console.log(`container-runtime: first run (and removal) / podman run --rm: ${formatSpread(firstRatio)}`);
    reportRatio({ benchmark: 'container-runtime', comparison: 'first run vs podman run --rm', ratio: firstRatio });
    await realSkillCommands(runtime);
  } finally {
    await runtime.files(workspace).remove('');
    runtime.close();
  }
}

/** The python-math example skill's scripts, as a skill_run would run them once staged. */
const skillCommands: Array<[string, string[]]> = [
  ['fib.py 2000', ['python3', 'scripts/fib.py', '2000']],
  ['primes.py 200000', ['python3', 'scripts/primes.py', '200000']],
];

/**
 * The same real-skill commands under bubblewrap, in the container and (with `runsc`) in the
 * container under gVisor, each in a workspace of its own that its runtime's files() staged.
 */
async function realSkillCommands(container: WorkspaceRuntime): Promise<void> {
  const scripts = new URL('../examples/skills/python-math/scripts/', import.meta.url);
  const tree = {
    kind: 'directory' as const,
    mode: 0o755,
    entries: ['fib.py', 'primes.py'].map((name) => ({
      kind: 'file' as const,
      path: name,
      mode: 0o755,
      content: { data: readFileSync(new URL(name, scripts)) },
    })),
  };
  const host = await mkdtemp(path.join(tmpdir(), 'skillbox-bench-skill-'));
  const runtimes: Record<string, WorkspaceRuntime> = { container };
  if (detectSandboxSupport().available) runtimes.bubblewrap = new SandboxRuntime();
  const gvisor =
    findExecutable('runsc') === undefined
      ? undefined
      : createContainerRuntime({ image, socketPath: gvisorSocket, ociRuntime: 'runsc' });
  if (gvisor !== undefined) runtimes.gvisor = gvisor;
  const workspaces: Record<string, string> = {};
  try {
    for (const [name, runtime] of Object.entries(runtimes)) {
      workspaces[name] = name === 'bubblewrap' ? host : `/skillbox-bench-skill-${name}-${process.pid}`;
      try {
        await runtime.files(workspaces[name]).put('scripts', tree);
      } catch (error) {
        // The daemon may not give the container gVisor (podman's compatible API ignores the runtime
        // asked for): the runtime refuses it, and a figure taken anyway would be runc's.
        if (name !== 'gvisor') throw error;
        console.log(`container-runtime: gVisor skipped (${(error as Error).message})`);
        delete runtimes.gvisor;
      }
    }
    for (const [label, argv] of skillCommands) {
      const tasks = Object.fromEntries(
        Object.entries(runtimes).map(([name, runtime]) => [
          name,
          async () => {
            const root = workspaces[name] as string;
            const result = await runtime.run({
              workspaceRoot: root,
              cwd: root,
              env: { PATH: '/usr/bin:/bin' },
              timeoutMs: 60_000,
              maxOutputBytes: 1 << 20,
              argv,
            });
            if (result.exitCode !== 0) throw new Error(`${name}: ${label} exited ${result.exitCode}: ${result.stderr}`);
          },
        ]),
      );
      const times = await interleavedTimes(tasks, RUNS);
      for (const name of Object.keys(runtimes).filter((name) => name !== 'bubblewrap')) {
        if (times.bubblewrap === undefined) continue;
        const ratio = pairedRatio(times[name] as number[], times.bubblewrap);
        console.log(`container-runtime: ${label}, ${name} / bubblewrap: ${formatSpread(ratio)}`);
        reportRatio({ benchmark: 'container-runtime', comparison: `${label}: ${name} vs bubblewrap`, ratio });
      }
    }
    if (gvisor === undefined) console.log('container-runtime: gVisor skipped (no runsc on this host)');
  } finally {
    for (const [name, runtime] of Object.entries(runtimes))
      if (name !== 'bubblewrap')
        await runtime
          .files(workspaces[name] as string)
          .remove('')
          .catch(() => undefined);
    gvisor?.close();
    await rm(host, { recursive: true, force: true });
  }
}
