import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { bubblewrapArguments } from './bubblewrap-arguments.js';
import { preludeCanJoinCgroups } from './cgroup-self-join.js';
import { RuntimeCommandError } from './errors.js';
import { resolveHostCommandFolders } from './host-command-folders.js';
import { RunCgroup, type RunLimit } from './run-cgroup.js';
import type { RuntimeCommand } from './runtime-types.js';
import { type Prelude, preludeArguments } from './sandbox-prelude.js';
import { shellArgv } from './shell-argv.js';

/** The resource limits a SandboxRuntime was built with (null: not limited). */
export interface SandboxLimits {
  maxProcesses: number | null;
  maxMemoryBytes: number | null;
  maxFileSizeBytes: number | null;
  maxTmpBytes: number | null;
  maxSharedMemoryBytes: number | null;
  maxCpus: number | null;
}

/** What a SandboxRuntime fixed at construction: everything a launch is built from besides the command. */
export interface SandboxLaunchSettings {
  bubblewrapPath: string;
  shell: string;
  limits: SandboxLimits;
  prelude: Prelude;
  /**
   * The compiled seccomp programs (seccomp-policy.ts): `memoryCounted` for a run whose memory a
   * cgroup counts or that has no memory cap, `memoryUncounted` (memfd and System V IPC refused) for
   * one whose cap only RLIMIT_AS enforces.
   */
  seccompFilters: { memoryCounted: Buffer; memoryUncounted: Buffer };
  cgroupLimits: boolean;
  sizedTmpfs: boolean;
  guestPath(hostPath: string, workspaceRoot: string): string;
}

/** One sandbox, ready to spawn: bubblewrap's command line, its option and filter pipes, and the run's cgroup. */
export interface SandboxLaunch {
  file: string;
  args: string[];
  inputPipes: Buffer[];
  /** The program as the command gave it, for messages. */
  program: string[];
  /** Held until the process ended; the caller releases it. */
  cgroup: RunCgroup | undefined;
  warnings: string[];
  /**
   * Spawn fields that put the sandbox into the cgroup (empty without one): the cgroup.procs
   * descriptors the compiled prelude joins through, or the shell preludes' hand-shake pipes.
   */
  cgroupSpawn: {
    extraPipes?: number;
    onSpawn?: (child: ChildProcess) => Promise<void>;
    sharedDescriptors?: readonly number[];
  };
}

/**
 * bwrap's arguments and its seccomp program are read from these; the cgroup hand-shake uses the
 * next two, or the compiled prelude finds the cgroup.procs descriptors from the first of them on.
 */
const ARGUMENTS_FD = 3;
const SECCOMP_FD = 4;
const INFO_FD = 5;
const BLOCK_FD = 6;
const FIRST_CGROUP_FD = 5;

/**
 * Builds the sandbox for one command. `run` and background processes (`start`) both launch through
 * here, so the two can never differ in mounts, namespaces, prelude, seccomp filter or cgroup caps.
 */
export async function prepareSandboxLaunch(
  settings: SandboxLaunchSettings,
  command: Omit<RuntimeCommand, 'stdin' | 'abortSignal'>,
): Promise<SandboxLaunch> {
  // The fields were checked above the runtime (validateRuntimeCommand). What the sandbox's own
  // confinement rests on is checked here, at launch: the folders it binds (canonical, the cwd
  // inside the workspace however links lead now) and the read-only paths it shows.
  const { workspaceRoot, cwd } = resolveHostCommandFolders(command);
  const readOnlyPaths = (command.readOnlyPaths ?? []).map(readOnlyPath);
  const { limits } = settings;
  const warnings: string[] = [];
  const { maxProcesses, maxMemoryBytes, maxCpus } = limits;
  const cgroup =
    (maxProcesses !== null || maxMemoryBytes !== null || maxCpus !== null) && settings.cgroupLimits
      ? RunCgroup.acquire({ maxProcesses, maxMemoryBytes, maxCpus })
      : undefined;
  // Where cgroups were found (processLimit `cgroup`) but this run's could not be made (the
  // hierarchy's limits reached, its parent gone): RLIMIT_NPROC alone remains, which binds no root.
  if (maxProcesses !== null && settings.cgroupLimits && cgroup === undefined)
    warnings.push(
      'sandbox: the process limit could not be applied to this run (its cgroup could not be made); RLIMIT_NPROC alone does not bind root',
    );
  if (maxCpus !== null && !cgroup?.cpuCapped)
    warnings.push('sandbox: the CPU limit could not be applied on this host (no cpu cgroup)');
  if (!settings.sizedTmpfs && (limits.maxTmpBytes !== null || limits.maxSharedMemoryBytes !== null))
    warnings.push('sandbox: /tmp and /dev/shm are not size-limited (this bubblewrap has no --size; 0.5 or later has)');
  // Without a memory cgroup the cap is RLIMIT_AS alone, per process, and memory nothing maps is
  // outside it: the filter then refuses the calls that hold such memory (seccomp-policy.ts).
  const memoryCounted = maxMemoryBytes === null || cgroup?.memoryCapped === true;
  const program = command.argv ?? shellArgv(settings.shell, command.command as string);
  // The compiled prelude joins the cgroup itself as its first act, through descriptors the host
  // opened: no pid to read back, no move to wait for while the sandbox is blocked. The shell
  // preludes cannot do that before running anything, so they keep bubblewrap's hand-shake.
  // A kernel that judges the write by the writer refuses it (cgroup-self-join.ts): asked once.
  const selfJoin =
    cgroup !== undefined &&
    settings.prelude.program !== undefined &&
    (await preludeCanJoinCgroups(settings.bubblewrapPath, settings.prelude.program.hostPath));
  const cgroupDescriptors = selfJoin ? (cgroup as RunCgroup).membershipDescriptors() : [];
  // The options travel on a pipe (bubblewrap wants only the command itself on its command line):
  // bubblewrap is pid 1 in the sandbox and the sandbox's first process on the host, and a command
  // line is readable by every process of both. It would show the workspace's host path.
  const options = [
    ...bubblewrapArguments({
      workspace: { root: workspaceRoot, cwd: settings.guestPath(cwd, workspaceRoot) },
      network: command.network === true,
      readOnlyPaths,
      tmpBytes: settings.sizedTmpfs ? limits.maxTmpBytes : null,
      sharedMemoryBytes: settings.sizedTmpfs ? limits.maxSharedMemoryBytes : null,
      ...(settings.prelude.program ? { preludeProgram: settings.prelude.program.hostPath } : {}),
    }),
    // The command is the sandbox's pid 1 (see sandbox-prelude.ts for why).
    '--as-pid-1',
    '--seccomp',
    String(SECCOMP_FD),
    ...(cgroup && !selfJoin ? ['--info-fd', String(INFO_FD), '--block-fd', String(BLOCK_FD)] : []),
  ];
  return {
    file: settings.bubblewrapPath,
    args: [
      '--args',
      String(ARGUMENTS_FD),
      '--',
      ...preludeArguments(
        settings.prelude,
        command.env,
        cgroupDescriptors.map((_, index) => FIRST_CGROUP_FD + index),
      ),
      ...program,
    ],
    inputPipes: [
      Buffer.from(options.map((option) => `${option}\0`).join(''), 'utf8'),
      memoryCounted ? settings.seccompFilters.memoryCounted : settings.seccompFilters.memoryUncounted,
    ],
    program,
    cgroup,
    warnings,
    cgroupSpawn: !cgroup
      ? {}
      : selfJoin
        ? { sharedDescriptors: cgroupDescriptors }
        : { extraPipes: 2, onSpawn: (child: ChildProcess) => joinCgroup(child, cgroup) },
  };
}

/** One warning per cap a run or process reached, saying what reaching it did. */
export function limitWarnings(limitsHit: readonly RunLimit[], limits: SandboxLimits, subject: string): string[] {
  return limitsHit.map((limit) => `sandbox: the ${subject} reached its ${limitDescription(limit, limits)}`);
}

function limitDescription(limit: RunLimit, limits: SandboxLimits): string {
  if (limit === 'processes') return `process cap (${limits.maxProcesses} processes): forks beyond it failed`;
  if (limit === 'memory')
    return `memory cap (${limits.maxMemoryBytes} bytes for all its processes): allocations failed or a process was killed`;
  return `CPU cap (${limits.maxCpus} CPUs): it was slowed down`;
}

/**
 * bwrap reports the sandbox's first process on --info-fd right after creating it, and that process
 * waits on --block-fd before it runs the program: it joins the cgroup in between, so the command
 * and every process it starts are counted. The move starts as soon as the pid is known, so the
 * kernel's wait on a first move (see RunCgroup.addInBackground) runs alongside bubblewrap's mount
 * set-up instead of after it. bwrap itself stays outside: it forks nothing after that first
 * process, and moving it too only added a serial round of moves to every run.
 */
async function joinCgroup(child: ChildProcess, cgroup: RunCgroup): Promise<void> {
  const pipes = child.stdio as unknown as (Readable | Writable)[];
  const info = pipes[INFO_FD] as Readable;
  const go = pipes[BLOCK_FD] as Writable;
  const sandboxPid = await new Promise<number>((resolvePid, reject) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (match) {
        info.off('data', onData);
        resolvePid(Number(match[1]));
      }
    };
    info.on('data', onData);
    info.once('close', () => reject(new Error('bubblewrap exited before reporting its sandbox process')));
  });
  await cgroup.addInBackground(sandboxPid);
  go.on('error', () => {});
  go.end('go');
}

/** Checked synchronously, as the workspace is (host-command-folders.ts says why). */
function readOnlyPath(path: string, index: number): string {
  const field = `readOnlyPaths[${index}]`;
  if (typeof path !== 'string' || !isAbsolute(path))
    throw new RuntimeCommandError(field, `must be an absolute host path, got ${JSON.stringify(path)}`);
  try {
    statSync(path);
  } catch {
    throw new RuntimeCommandError(field, `"${path}" does not exist`);
  }
  return resolve(path);
}
