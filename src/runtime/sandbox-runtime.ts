import type { ChildProcess } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { isAbsolute, posix, relative, resolve, sep } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { throwConfigError } from '../config/option-problems.js';
import { validateOptions } from '../config/validate-options.js';
import { bubblewrapArguments, SANDBOX_WORKSPACE_PATH } from './bubblewrap-arguments.js';
import { RuntimeCommandError, SandboxUnavailableError } from './errors.js';
import { findExecutable, SYSTEM_PATH } from './find-executable.js';
import { HostProcessRegistry } from './host-process.js';
import { HostWorkspaceFiles } from './host-workspace-files.js';
import { isInside } from './is-inside.js';
import { RunCgroup, type RunLimit } from './run-cgroup.js';
import { commandProcessFields, runProcess } from './run-process.js';
import { withRunSpan } from './run-span.js';
import { sandboxRuntimeOptionsSchema } from './runtime-options-schema.js';
import type { RuntimeProcess, RuntimeProcessCommand } from './runtime-process.js';
import type { RuntimeCommand, RuntimeResult, WorkspaceRuntime } from './runtime-types.js';
import { preludeArguments, preludeScript } from './sandbox-prelude.js';
import { startSandboxProcess } from './sandbox-process.js';
import { detectSandboxSupport } from './sandbox-support.js';
import { shellArgv } from './shell-argv.js';
import { validateRuntimeCommand } from './validate-command.js';
import type { WorkspaceFiles } from './workspace-files.js';

/** Options of `SandboxRuntime`: the bubblewrap binary, the shell and resource limits (processes, memory, file size, tmpfs sizes). */
export interface SandboxRuntimeOptions {
  /** Path or name of bubblewrap. Default: `bwrap` on PATH or in the system folders. */
  bubblewrapPath?: string;
  /** Shell for `command` strings, found on the host and used at the same path inside. Default `bash`. */
  shell?: string;
  /** Most processes (and threads) a run may have at once; `null` for no cap. Default 256. */
  maxProcesses?: number | null;
  /**
   * Memory cap in bytes; `null` for none. Default 4 GiB. Applied to each process's address space
   * (RLIMIT_AS) and, where a memory cgroup can be made, to all of a run's processes together
   * (`memory.max` / `memory.limit_in_bytes`, which counts tmpfs and page cache too).
   */
  maxMemoryBytes?: number | null;
  /** Largest file a process may write (RLIMIT_FSIZE) in bytes; `null` for none. Default 1 GiB. */
  maxFileSizeBytes?: number | null;
  /** Size of the private `/tmp` (tmpfs) in bytes; `null` for tmpfs's default, half the host's RAM. Default 1 GiB. */
  maxTmpBytes?: number | null;
  /** Size of `/dev/shm` (tmpfs) in bytes; `null` for half the host's RAM. Default 64 MiB (Docker's figure). */
  maxSharedMemoryBytes?: number | null;
  /**
   * CPU time a run may use, in CPUs' worth per wall-clock second (`cpu.max` on cgroup v2,
   * `cpu.cfs_quota_us` on v1), so one run cannot take every core of a shared host; `null` for none.
   * Default 2. Needs a cpu cgroup (see `detectSandboxSupport().cpuLimit`); a fraction such as 0.5 is allowed.
   */
  maxCpus?: number | null;
}

export const SANDBOX_DEFAULT_LIMITS = {
  maxProcesses: 256,
  maxMemoryBytes: 4 * 1024 ** 3,
  maxFileSizeBytes: 1024 ** 3,
  maxTmpBytes: 1024 ** 3,
  maxSharedMemoryBytes: 64 * 1024 ** 2,
  maxCpus: 2,
} as const;

/**
 * Runs each command in a fresh bubblewrap sandbox: new user (no nested ones), pid, ipc, uts,
 * network and (where possible) cgroup namespaces; a seccomp filter (seccomp-policy.ts); the host's
 * system folders and /proc read-only; the workspace read-write at `/workspace` as the only writable
 * place besides a private /tmp; no network unless the command asks; no inherited descriptors (the
 * prelude, sandbox-prelude.ts); capped processes, memory, CPU and file size. Killing bwrap ends
 * the pid namespace, so a timeout leaves nothing behind. docs/security.md has the threat model.
 */
export class SandboxRuntime implements WorkspaceRuntime {
  readonly kind = 'sandbox';
  readonly isolated = true;
  readonly bubblewrapPath: string;
  readonly shell: string;
  readonly limits: {
    maxProcesses: number | null;
    maxMemoryBytes: number | null;
    maxFileSizeBytes: number | null;
    maxTmpBytes: number | null;
    maxSharedMemoryBytes: number | null;
    maxCpus: number | null;
  };
  private readonly bashPath: string;
  /** The prelude's script (fd closing and rlimits), fixed for the runtime's life. */
  private readonly preludeScript: string;
  private readonly seccompFilter: Buffer;
  private readonly cgroupLimits: boolean;
  private readonly sizedTmpfs: boolean;
  private readonly processes = new HostProcessRegistry();

  constructor(options: SandboxRuntimeOptions = {}) {
    validateOptions('SandboxRuntime', sandboxRuntimeOptionsSchema, options);
    this.limits = {
      maxProcesses: limitOption('maxProcesses', options.maxProcesses, SANDBOX_DEFAULT_LIMITS.maxProcesses),
      maxMemoryBytes: limitOption('maxMemoryBytes', options.maxMemoryBytes, SANDBOX_DEFAULT_LIMITS.maxMemoryBytes),
      maxFileSizeBytes: limitOption(
        'maxFileSizeBytes',
        options.maxFileSizeBytes,
        SANDBOX_DEFAULT_LIMITS.maxFileSizeBytes,
      ),
      maxTmpBytes: limitOption('maxTmpBytes', options.maxTmpBytes, SANDBOX_DEFAULT_LIMITS.maxTmpBytes),
      maxSharedMemoryBytes: limitOption(
        'maxSharedMemoryBytes',
        options.maxSharedMemoryBytes,
        SANDBOX_DEFAULT_LIMITS.maxSharedMemoryBytes,
      ),
      maxCpus: cpuOption(options.maxCpus),
    };
    const support = detectSandboxSupport(
      options.bubblewrapPath === undefined ? {} : { bubblewrapPath: options.bubblewrapPath },
    );
    if (!support.available) throw new SandboxUnavailableError(support.reason);
    const shellName = options.shell ?? 'bash';
    const shell = findExecutable(shellName, SYSTEM_PATH);
    if (!shell)
      throwConfigError(
        'SandboxRuntime',
        'shell',
        `names no executable: "${shellName}" is not in the system folders ${SYSTEM_PATH}, which the sandbox mounts`,
      );
    this.shell = shell;
    this.bashPath = support.bashPath;
    this.seccompFilter = support.seccompFilter;
    this.bubblewrapPath = support.bubblewrapPath;
    this.cgroupLimits = support.processLimit === 'cgroup';
    this.sizedTmpfs = support.sizedTmpfs;
    this.preludeScript = preludeScript(this.limits);
  }

  guestPath(hostPath: string, workspaceRoot: string): string {
    const root = resolve(workspaceRoot);
    const path = resolve(hostPath);
    if (!isInside(root, path)) {
      throw new RuntimeCommandError(
        'path',
        `"${hostPath}" is outside the workspace "${workspaceRoot}" and is not visible in the sandbox`,
      );
    }
    const rel = relative(root, path);
    return rel === '' ? SANDBOX_WORKSPACE_PATH : posix.join(SANDBOX_WORKSPACE_PATH, ...rel.split(sep));
  }

  /** The workspace is a host folder: the host reaches its files directly. */
  files(workspaceRoot: string): WorkspaceFiles {
    return new HostWorkspaceFiles(workspaceRoot);
  }

  run(command: RuntimeCommand): Promise<RuntimeResult> {
    return withRunSpan(this.kind, async () => {
      const { workspaceRoot, cwd } = await validateRuntimeCommand(command);
      const readOnlyPaths = await Promise.all(
        (command.readOnlyPaths ?? []).map((path, index) => readOnlyPath(path, index)),
      );
      const warnings: string[] = [];
      const { maxProcesses, maxMemoryBytes, maxCpus } = this.limits;
      const cgroup =
        (maxProcesses !== null || maxMemoryBytes !== null || maxCpus !== null) && this.cgroupLimits
          ? RunCgroup.acquire({ maxProcesses, maxMemoryBytes, maxCpus })
          : undefined;
      if (this.limits.maxCpus !== null && !cgroup?.cpuCapped)
        warnings.push('sandbox: the CPU limit could not be applied on this host (no cpu cgroup)');
      if (!this.sizedTmpfs && (this.limits.maxTmpBytes !== null || this.limits.maxSharedMemoryBytes !== null)) {
        warnings.push(
          'sandbox: /tmp and /dev/shm are not size-limited (this bubblewrap has no --size; 0.5 or later has)',
        );
      }
      const program = command.argv ?? shellArgv(this.shell, command.command as string);
      // The options travel on a pipe (bubblewrap wants only the command itself on its command line):
      // bubblewrap is pid 1 in the sandbox and the sandbox's first process on the host, and a command
      // line is readable by every process of both. It would show the workspace's host path.
      const options = [
        ...bubblewrapArguments({
          workspace: { root: workspaceRoot, cwd: this.guestPath(cwd, workspaceRoot) },
          network: command.network === true,
          readOnlyPaths,
          tmpBytes: this.sizedTmpfs ? this.limits.maxTmpBytes : null,
          sharedMemoryBytes: this.sizedTmpfs ? this.limits.maxSharedMemoryBytes : null,
        }),
        // The command is the sandbox's pid 1 (see sandbox-prelude.ts for why).
        '--as-pid-1',
        '--seccomp',
        String(SECCOMP_FD),
        ...(cgroup ? ['--info-fd', String(INFO_FD), '--block-fd', String(BLOCK_FD)] : []),
      ];
      try {
        const outcome = await runProcess({
          file: this.bubblewrapPath,
          args: [
            '--args',
            String(ARGUMENTS_FD),
            '--',
            ...preludeArguments(this.bashPath, this.preludeScript, command.env),
            ...program,
          ],
          inputPipes: [Buffer.from(options.map((option) => `${option}\0`).join(''), 'utf8'), this.seccompFilter],
          cwd: '/',
          // bwrap passes its own environment on unchanged: this is the command's whole environment.
          ...commandProcessFields(command),
          displayName: program[0] as string,
          ...(cgroup ? { extraPipes: 2, onSpawn: (child: ChildProcess) => joinCgroup(child, cgroup) } : {}),
        });
        const limitsHit = cgroup?.limitsHit() ?? [];
        for (const limit of limitsHit)
          warnings.push(`sandbox: the run reached its ${limitDescription(limit, this.limits)}`);
        return {
          ...outcome,
          warnings: [...warnings, ...outcome.warnings],
          ...(limitsHit.length > 0 ? { limitsHit } : {}),
        };
      } finally {
        await cgroup?.release();
      }
    });
  }

  /** A background process in a sandbox built as for `run` (sandbox-process.ts). */
  start(command: RuntimeProcessCommand): Promise<RuntimeProcess> {
    return startSandboxProcess(
      {
        runtime: this,
        bashPath: this.bashPath,
        preludeScript: this.preludeScript,
        seccompFilter: this.seccompFilter,
        cgroupLimits: this.cgroupLimits,
        sizedTmpfs: this.sizedTmpfs,
        descriptors: { arguments: ARGUMENTS_FD, seccomp: SECCOMP_FD, info: INFO_FD, block: BLOCK_FD },
        joinCgroup,
        readOnlyPath,
        limitDescription,
      },
      command,
      this.processes,
    );
  }

  stopProcesses(workspaceRoot: string): Promise<void> {
    return this.processes.stop(workspaceRoot);
  }
}

/** bwrap's arguments and its seccomp program are read from these; the cgroup hand-shake uses the next two. */
const ARGUMENTS_FD = 3;
const SECCOMP_FD = 4;
const INFO_FD = 5;
const BLOCK_FD = 6;

function limitDescription(limit: RunLimit, limits: SandboxRuntime['limits']): string {
  if (limit === 'processes') return `process cap (${limits.maxProcesses} processes): forks beyond it failed`;
  if (limit === 'memory')
    return `memory cap (${limits.maxMemoryBytes} bytes for all its processes): allocations failed or a process was killed`;
  return `CPU cap (${limits.maxCpus} CPUs): it was slowed down`;
}

/**
 * bwrap reports the sandbox's first process on --info-fd and waits on --block-fd before it runs the program:
 * in between, both bwrap and that process join the cgroup, so every later fork is counted. bwrap
 * itself is moved at once, while it is still setting up, so the kernel's wait on the first move
 * (see RunCgroup.addInBackground) runs alongside the set-up.
 */
async function joinCgroup(child: ChildProcess, cgroup: RunCgroup): Promise<void> {
  const pipes = child.stdio as unknown as (Readable | Writable)[];
  const info = pipes[INFO_FD] as Readable;
  const go = pipes[BLOCK_FD] as Writable;
  const bubblewrapJoined = cgroup.addInBackground(child.pid as number);
  // Awaited below; this only keeps a failure that comes before then from counting as unhandled.
  bubblewrapJoined.catch(() => {});
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
  await bubblewrapJoined;
  cgroup.add(sandboxPid);
  go.on('error', () => {});
  go.end('go');
}

function limitOption(_name: string, value: number | null | undefined, fallback: number): number | null {
  if (value === undefined) return fallback;
  // Checked by sandboxRuntimeOptionsSchema when the runtime is created.
  return value;
}

async function readOnlyPath(path: string, index: number): Promise<string> {
  const field = `readOnlyPaths[${index}]`;
  if (typeof path !== 'string' || !isAbsolute(path))
    throw new RuntimeCommandError(field, `must be an absolute host path, got ${JSON.stringify(path)}`);
  try {
    await stat(path);
  } catch {
    throw new RuntimeCommandError(field, `"${path}" does not exist`);
  }
  return resolve(path);
}

function cpuOption(value: number | null | undefined): number | null {
  if (value === undefined) return SANDBOX_DEFAULT_LIMITS.maxCpus;
  // Checked by sandboxRuntimeOptionsSchema when the runtime is created.
  return value;
}
