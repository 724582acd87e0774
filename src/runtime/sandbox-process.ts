import { startHostProcess } from './host-process.js';
import type { HostProcessRegistry } from './host-process-registry.js';
import type { RuntimeProcess, RuntimeProcessCommand } from './runtime-process.js';
import { limitWarnings, prepareSandboxLaunch, type SandboxLaunchSettings } from './sandbox-launch.js';
import { trackSandbox, type WorkspaceSandboxes } from './workspace-sandboxes.js';

/**
 * Starts a background process in a fresh bubblewrap sandbox built by the same code as a run
 * (sandbox-launch.ts): the same mounts, namespaces, --die-with-parent and --new-session, prelude,
 * seccomp filter and cgroup caps, and the command as the only environment. Killing bubblewrap ends
 * the pid namespace, so the process cannot leave anything behind when it is killed, reaches its
 * lifetime, or its workspace is stopped. The cgroup is held for the process's life and released
 * after it ended.
 */
export async function startSandboxProcess(
  settings: SandboxLaunchSettings,
  command: RuntimeProcessCommand,
  registry: HostProcessRegistry,
  sandboxes: WorkspaceSandboxes,
): Promise<RuntimeProcess> {
  const launch = await prepareSandboxLaunch(settings, command);
  const tracked = trackSandbox(sandboxes, command.workspaceRoot, launch.cgroupSpawn.onSpawn);
  try {
    const started = startHostProcess({
      file: launch.file,
      args: launch.args,
      inputPipes: launch.inputPipes,
      cwd: '/',
      env: { ...command.env },
      lifetimeMs: command.timeoutMs,
      maxUnreadBytes: command.maxOutputBytes,
      displayName: launch.program[0] as string,
      ...launch.cgroupSpawn,
      onSpawn: tracked.onSpawn,
      onExit: async () => {
        tracked.forget();
        const limitsHit = launch.cgroup?.limitsHit() ?? [];
        await launch.cgroup?.release();
        return { warnings: [...launch.warnings, ...limitWarnings(limitsHit, settings.limits, 'process')], limitsHit };
      },
    });
    return registry.add(command.workspaceRoot, started);
  } catch (error) {
    tracked.forget();
    await launch.cgroup?.release();
    throw error;
  }
}
