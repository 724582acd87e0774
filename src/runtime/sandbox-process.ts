import type { ChildProcess } from 'node:child_process';
import { bubblewrapArguments } from './bubblewrap-arguments.js';
import { type HostProcessRegistry, startHostProcess } from './host-process.js';
import { RunCgroup, type RunLimit } from './run-cgroup.js';
import type { RuntimeProcess, RuntimeProcessCommand } from './runtime-process.js';
import { preludeArguments } from './sandbox-prelude.js';
import type { SandboxRuntime } from './sandbox-runtime.js';
import { shellArgv } from './shell-argv.js';
import { validateRuntimeCommand } from './validate-command.js';

/**
 * What a SandboxRuntime fixed at construction and the helpers its `run` uses, handed to `start`
 * (passed in rather than imported, so this file and sandbox-runtime.ts do not import each other).
 */
export interface SandboxLaunchSettings {
  runtime: SandboxRuntime;
  bashPath: string;
  preludeScript: string;
  seccompFilter: Buffer;
  cgroupLimits: boolean;
  sizedTmpfs: boolean;
  descriptors: { arguments: number; seccomp: number; info: number; block: number };
  joinCgroup: (child: ChildProcess, cgroup: RunCgroup) => Promise<void>;
  readOnlyPath: (path: string, index: number) => Promise<string>;
  limitDescription: (limit: RunLimit, limits: SandboxRuntime['limits']) => string;
}

/**
 * Starts a background process in a fresh bubblewrap sandbox built exactly as SandboxRuntime.run
 * builds one: the same bubblewrap options (bubblewrap-arguments.ts: mounts, namespaces,
 * --die-with-parent, --new-session), the same prelude (fd closing, rlimits), seccomp filter and
 * cgroup caps, and the command as the only environment. Killing bubblewrap ends the pid namespace,
 * so the process cannot leave anything behind when it is killed, reaches its lifetime, or its
 * workspace is stopped. The cgroup is held for the process's life and released after it ended.
 */
export async function startSandboxProcess(
  settings: SandboxLaunchSettings,
  command: RuntimeProcessCommand,
  registry: HostProcessRegistry,
): Promise<RuntimeProcess> {
  const { runtime, descriptors, joinCgroup, readOnlyPath, limitDescription } = settings;
  const { workspaceRoot, cwd } = await validateRuntimeCommand(command);
  const readOnlyPaths = await Promise.all(
    (command.readOnlyPaths ?? []).map((path, index) => readOnlyPath(path, index)),
  );
  const warnings: string[] = [];
  const { maxProcesses, maxMemoryBytes, maxCpus } = runtime.limits;
  const cgroup =
    (maxProcesses !== null || maxMemoryBytes !== null || maxCpus !== null) && settings.cgroupLimits
      ? RunCgroup.acquire({ maxProcesses, maxMemoryBytes, maxCpus })
      : undefined;
  if (maxCpus !== null && !cgroup?.cpuCapped)
    warnings.push('sandbox: the CPU limit could not be applied on this host (no cpu cgroup)');
  if (!settings.sizedTmpfs && (runtime.limits.maxTmpBytes !== null || runtime.limits.maxSharedMemoryBytes !== null))
    warnings.push('sandbox: /tmp and /dev/shm are not size-limited (this bubblewrap has no --size; 0.5 or later has)');
  const program = command.argv ?? shellArgv(runtime.shell, command.command as string);
  // On a pipe, as for a run: bubblewrap's command line is readable inside the sandbox.
  const options = [
    ...bubblewrapArguments({
      workspace: { root: workspaceRoot, cwd: runtime.guestPath(cwd, workspaceRoot) },
      network: command.network === true,
      readOnlyPaths,
      tmpBytes: settings.sizedTmpfs ? runtime.limits.maxTmpBytes : null,
      sharedMemoryBytes: settings.sizedTmpfs ? runtime.limits.maxSharedMemoryBytes : null,
    }),
    '--as-pid-1',
    '--seccomp',
    String(descriptors.seccomp),
    ...(cgroup ? ['--info-fd', String(descriptors.info), '--block-fd', String(descriptors.block)] : []),
  ];
  try {
    const started = startHostProcess({
      file: runtime.bubblewrapPath,
      args: [
        '--args',
        String(descriptors.arguments),
        '--',
        ...preludeArguments(settings.bashPath, settings.preludeScript, command.env),
        ...program,
      ],
      inputPipes: [Buffer.from(options.map((option) => `${option}\0`).join(''), 'utf8'), settings.seccompFilter],
      cwd: '/',
      env: { ...command.env },
      lifetimeMs: command.timeoutMs,
      maxUnreadBytes: command.maxOutputBytes,
      displayName: program[0] as string,
      ...(cgroup ? { extraPipes: 2, onSpawn: (child: ChildProcess) => joinCgroup(child, cgroup) } : {}),
      onExit: async () => {
        const limitsHit = cgroup?.limitsHit() ?? [];
        await cgroup?.release();
        return {
          warnings: [
            ...warnings,
            ...limitsHit.map((limit) => `sandbox: the process reached its ${limitDescription(limit, runtime.limits)}`),
          ],
          limitsHit,
        };
      },
    });
    return registry.add(command.workspaceRoot, started);
  } catch (error) {
    await cgroup?.release();
    throw error;
  }
}
