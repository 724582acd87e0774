import type { ChildProcess } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { isAbsolute, posix, relative, resolve, sep } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { RuntimeCommand, RuntimeResult, WorkspaceRuntime } from '../runtime-types.js';
import { bubblewrapArguments, SANDBOX_WORKSPACE_PATH } from './bubblewrap-arguments.js';
import { RuntimeCommandError, RuntimeConfigError, SandboxUnavailableError } from './errors.js';
import { findExecutable, SYSTEM_PATH } from './find-executable.js';
import { RunCgroup } from './run-cgroup.js';
import { commandProcessFields, runProcess } from './run-process.js';
import { shellArgv } from './shell-argv.js';
import { withRunSpan } from './run-span.js';
import { detectSandboxSupport } from './sandbox-support.js';
import { isInside } from '../workspace-paths.js';
import { validateRuntimeCommand } from './validate-command.js';

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
}

export const SANDBOX_DEFAULT_LIMITS = {
  maxProcesses: 256,
  maxMemoryBytes: 4 * 1024 ** 3,
  maxFileSizeBytes: 1024 ** 3,
  maxTmpBytes: 1024 ** 3,
  maxSharedMemoryBytes: 64 * 1024 ** 2,
} as const;

/**
 * Runs each command in a fresh bubblewrap sandbox: new user, pid, ipc, uts, network and (where
 * possible) cgroup namespaces; the host's system folders read-only; the workspace read-write at
 * `/workspace` as the only writable place besides a private /tmp; no network unless the command
 * asks; capped processes, memory and file size. Killing bwrap ends the pid namespace, so a timeout
 * leaves nothing behind.
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
  };
  private readonly envPath: string;
  /** `prlimit --nproc=… --as=… --fsize=… --`, fixed for the runtime's life; empty without prlimit. */
  private readonly rlimitArguments: readonly string[];
  private readonly processLimit: 'cgroup' | 'rlimit' | 'none';
  private readonly sizedTmpfs: boolean;

  constructor(options: SandboxRuntimeOptions = {}) {
    this.limits = {
      maxProcesses: limitOption('maxProcesses', options.maxProcesses, SANDBOX_DEFAULT_LIMITS.maxProcesses),
      maxMemoryBytes: limitOption('maxMemoryBytes', options.maxMemoryBytes, SANDBOX_DEFAULT_LIMITS.maxMemoryBytes),
      maxFileSizeBytes: limitOption('maxFileSizeBytes', options.maxFileSizeBytes, SANDBOX_DEFAULT_LIMITS.maxFileSizeBytes),
      maxTmpBytes: limitOption('maxTmpBytes', options.maxTmpBytes, SANDBOX_DEFAULT_LIMITS.maxTmpBytes),
      maxSharedMemoryBytes: limitOption('maxSharedMemoryBytes', options.maxSharedMemoryBytes, SANDBOX_DEFAULT_LIMITS.maxSharedMemoryBytes),
    };
    const support = detectSandboxSupport(options.bubblewrapPath === undefined ? {} : { bubblewrapPath: options.bubblewrapPath });
    if (!support.available) throw new SandboxUnavailableError(support.reason);
    const shellName = options.shell ?? 'bash';
    const shell = findExecutable(shellName, SYSTEM_PATH);
    if (!shell) throw new RuntimeConfigError('shell', `no executable "${shellName}" in the system folders ${SYSTEM_PATH}, which the sandbox mounts`);
    this.shell = shell;
    const envPath = findExecutable('env', SYSTEM_PATH);
    if (!envPath) throw new SandboxUnavailableError(`no \`env\` program in the system folders ${SYSTEM_PATH}`);
    this.envPath = envPath;
    this.bubblewrapPath = support.bubblewrapPath;
    this.processLimit = support.processLimit;
    this.sizedTmpfs = support.sizedTmpfs;
    this.rlimitArguments = rlimitArguments(support.prlimitPath, this.limits);
  }

  guestPath(hostPath: string, workspaceRoot: string): string {
    const root = resolve(workspaceRoot);
    const path = resolve(hostPath);
    if (!isInside(root, path)) {
      throw new RuntimeCommandError('path', `"${hostPath}" is outside the workspace "${workspaceRoot}" and is not visible in the sandbox`);
    }
    const rel = relative(root, path);
    return rel === '' ? SANDBOX_WORKSPACE_PATH : posix.join(SANDBOX_WORKSPACE_PATH, ...rel.split(sep));
  }

  run(command: RuntimeCommand): Promise<RuntimeResult> {
    return withRunSpan(this.kind, async () => {
      const { workspaceRoot, cwd } = await validateRuntimeCommand(command);
      const readOnlyPaths = await Promise.all((command.readOnlyPaths ?? []).map((path, index) => readOnlyPath(path, index)));
      const warnings: string[] = [];
      const { maxProcesses, maxMemoryBytes } = this.limits;
      const cgroup = (maxProcesses !== null || maxMemoryBytes !== null) && this.processLimit === 'cgroup' ? RunCgroup.acquire({ maxProcesses, maxMemoryBytes }) : undefined;
      if (this.limits.maxProcesses !== null && !cgroup && this.processLimit !== 'rlimit') {
        warnings.push('sandbox: the process limit could not be applied on this host (no pids cgroup, no prlimit)');
      }
      if (!this.sizedTmpfs && (this.limits.maxTmpBytes !== null || this.limits.maxSharedMemoryBytes !== null)) {
        warnings.push('sandbox: /tmp and /dev/shm are not size-limited (this bubblewrap has no --size; 0.5 or later has)');
      }
      const program = command.argv ?? shellArgv(this.shell, command.command as string);
      const args = [
        ...bubblewrapArguments({
          workspace: { root: workspaceRoot, cwd: this.guestPath(cwd, workspaceRoot) },
          network: command.network === true,
          readOnlyPaths,
          tmpBytes: this.sizedTmpfs ? this.limits.maxTmpBytes : null,
          sharedMemoryBytes: this.sizedTmpfs ? this.limits.maxSharedMemoryBytes : null,
        }),
        ...(cgroup ? ['--info-fd', '3', '--block-fd', '4'] : []),
        ...this.rlimitArguments,
        ...this.environmentPrefix(command.env),
        ...program,
      ];
      try {
        const outcome = await runProcess({
          file: this.bubblewrapPath,
          args,
          cwd: '/',
          // bwrap passes its own environment on unchanged: this is the command's whole environment.
          ...commandProcessFields(command),
          displayName: program[0] as string,
          ...(cgroup ? { extraPipes: 2, onSpawn: (child: ChildProcess) => joinCgroup(child, cgroup) } : {}),
        });
        return { ...outcome, warnings: [...warnings, ...outcome.warnings] };
      } finally {
        await cgroup?.release();
      }
    });
  }

  /**
   * bwrap always sets PWD to the directory it starts in; `env` puts back what the caller gave
   * (or removes it), so the program sees exactly the requested environment.
   */
  private environmentPrefix(env: Record<string, string>): string[] {
    return env.PWD === undefined ? [this.envPath, '-u', 'PWD', '--'] : [this.envPath, `PWD=${env.PWD}`, '--'];
  }

}

/**
 * bwrap reports the sandbox's first process on fd 3 and waits on fd 4 before it runs the program:
 * in between, both bwrap and that process join the cgroup, so every later fork is counted.
 */
async function joinCgroup(child: ChildProcess, cgroup: RunCgroup): Promise<void> {
  const info = child.stdio[3] as Readable;
  const go = child.stdio[4] as Writable;
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
  cgroup.add(child.pid as number);
  cgroup.add(sandboxPid);
  go.on('error', () => {});
  go.end('go');
}

function limitOption(name: string, value: number | null | undefined, fallback: number): number | null {
  if (value === undefined) return fallback;
  if (value === null) return null;
  if (!Number.isInteger(value) || value <= 0) throw new RuntimeConfigError(name, `must be a positive integer or null, got ${String(value)}`);
  return value;
}

async function readOnlyPath(path: string, index: number): Promise<string> {
  const field = `readOnlyPaths[${index}]`;
  if (typeof path !== 'string' || !isAbsolute(path)) throw new RuntimeCommandError(field, `must be an absolute host path, got ${JSON.stringify(path)}`);
  try {
    await stat(path);
  } catch {
    throw new RuntimeCommandError(field, `"${path}" does not exist`);
  }
  return resolve(path);
}

/** prlimit sets the rlimits on itself and then execs the program, inside the sandbox. */
function rlimitArguments(prlimitPath: string | undefined, limits: SandboxRuntime['limits']): readonly string[] {
  if (!prlimitPath) return [];
  const { maxProcesses, maxMemoryBytes, maxFileSizeBytes } = limits;
  const settings = [
    ...(maxProcesses === null ? [] : [`--nproc=${maxProcesses}`]),
    ...(maxMemoryBytes === null ? [] : [`--as=${maxMemoryBytes}`]),
    ...(maxFileSizeBytes === null ? [] : [`--fsize=${maxFileSizeBytes}`]),
  ];
  return settings.length === 0 ? [] : [prlimitPath, ...settings, '--'];
}
