import { posix, relative, resolve, sep } from 'node:path';
import { throwConfigError } from '../config/option-problems.js';
import { validateOptions } from '../config/validate-options.js';
import { SANDBOX_WORKSPACE_PATH } from './bubblewrap-arguments.js';
import { RuntimeCommandError, SandboxUnavailableError } from './errors.js';
import { findExecutable, SYSTEM_PATH } from './find-executable.js';
import { HostProcessRegistry } from './host-process-registry.js';
import { HostWorkspaceFiles } from './host-workspace-files.js';
import { isInside } from './is-inside.js';
import { commandProcessFields, runProcess } from './run-process.js';
import { withRunSpan } from './run-span.js';
import { sandboxRuntimeOptionsSchema } from './runtime-options-schema.js';
import type { RuntimeProcess, RuntimeProcessCommand } from './runtime-process.js';
import type { RuntimeCommand, RuntimeResult, WorkspaceRuntime } from './runtime-types.js';
import { limitWarnings, prepareSandboxLaunch, type SandboxLaunchSettings } from './sandbox-launch.js';
import { createPrelude, type Prelude } from './sandbox-prelude.js';
import { findPreludeProgram } from './sandbox-prelude-program.js';
import { startSandboxProcess } from './sandbox-process.js';
import { detectSandboxSupport } from './sandbox-support.js';
import { seccompFilter } from './seccomp-policy.js';
import type { WorkspaceFiles } from './workspace-files.js';
import { trackSandbox, WorkspaceSandboxes } from './workspace-sandboxes.js';

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
  /** The prelude's shells and scripts (fd closing and rlimits), fixed for the runtime's life. */
  private readonly prelude: Prelude;
  private readonly cgroupLimits: boolean;
  private readonly sizedTmpfs: boolean;
  private readonly processes = new HostProcessRegistry();
  /** Each workspace's live sandboxes, whose open files count towards its quota. */
  private readonly sandboxes = new WorkspaceSandboxes();
  /** Everything `run` and `start` build a sandbox from besides the command (sandbox-launch.ts). */
  private readonly launchSettings: SandboxLaunchSettings;

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
    this.bubblewrapPath = support.bubblewrapPath;
    this.cgroupLimits = support.processLimit === 'cgroup';
    this.sizedTmpfs = support.sizedTmpfs;
    this.prelude = createPrelude(
      this.limits,
      support.bashPath,
      findExecutable('dash', SYSTEM_PATH),
      findPreludeProgram(),
    );
    this.launchSettings = {
      bubblewrapPath: this.bubblewrapPath,
      shell: this.shell,
      limits: this.limits,
      prelude: this.prelude,
      seccompFilters: {
        memoryCounted: support.seccompFilter,
        memoryUncounted: seccompFilter(process.arch, { refuseUncountedMemory: true }) as Buffer,
      },
      cgroupLimits: this.cgroupLimits,
      sizedTmpfs: this.sizedTmpfs,
      guestPath: (hostPath, workspaceRoot) => this.guestPath(hostPath, workspaceRoot),
    };
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
    return new HostWorkspaceFiles(workspaceRoot, { heldOpenBy: () => this.sandboxes.pids(workspaceRoot) });
  }

  run(command: RuntimeCommand): Promise<RuntimeResult> {
    return withRunSpan(this.kind, async () => {
      const launch = await prepareSandboxLaunch(this.launchSettings, command);
      const tracked = trackSandbox(this.sandboxes, command.workspaceRoot, launch.cgroupSpawn.onSpawn);
      try {
        const outcome = await runProcess({
          file: launch.file,
          args: launch.args,
          inputPipes: launch.inputPipes,
          cwd: '/',
          // bwrap passes its own environment on unchanged: this is the command's whole environment.
          ...commandProcessFields(command),
          displayName: launch.program[0] as string,
          ...launch.cgroupSpawn,
          onSpawn: tracked.onSpawn,
        });
        const limitsHit = launch.cgroup?.limitsHit() ?? [];
        return {
          ...outcome,
          warnings: [...launch.warnings, ...limitWarnings(limitsHit, this.limits, 'run'), ...outcome.warnings],
          ...(limitsHit.length > 0 ? { limitsHit } : {}),
        };
      } finally {
        tracked.forget();
        await launch.cgroup?.release();
      }
    });
  }

  /** A background process in a sandbox built as for `run` (sandbox-process.ts). */
  start(command: RuntimeProcessCommand): Promise<RuntimeProcess> {
    return startSandboxProcess(this.launchSettings, command, this.processes, this.sandboxes);
  }

  stopProcesses(workspaceRoot: string): Promise<void> {
    return this.processes.stop(workspaceRoot);
  }
}

function limitOption(_name: string, value: number | null | undefined, fallback: number): number | null {
  if (value === undefined) return fallback;
  // Checked by sandboxRuntimeOptionsSchema when the runtime is created.
  return value;
}

function cpuOption(value: number | null | undefined): number | null {
  if (value === undefined) return SANDBOX_DEFAULT_LIMITS.maxCpus;
  // Checked by sandboxRuntimeOptionsSchema when the runtime is created.
  return value;
}
