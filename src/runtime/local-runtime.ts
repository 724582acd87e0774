import { throwConfigError } from '../config/option-problems.js';
import { validateOptions } from '../config/validate-options.js';
import { findExecutable, SYSTEM_PATH } from './find-executable.js';
import { resolveHostCommandFolders } from './host-command-folders.js';
import { startHostProcess } from './host-process.js';
import { HostProcessRegistry } from './host-process-registry.js';
import { HostWorkspaceFiles } from './host-workspace-files.js';
import { commandProcessFields, runProcess } from './run-process.js';
import { withRunSpan } from './run-span.js';
import { localRuntimeOptionsSchema } from './runtime-options-schema.js';
import type { RuntimeProcess, RuntimeProcessCommand } from './runtime-process.js';
import type { RuntimeCommand, RuntimeResult, WorkspaceRuntime } from './runtime-types.js';
import { shellArgv } from './shell-argv.js';
import type { WorkspaceFiles } from './workspace-files.js';

/** Options of `LocalRuntime` (which runs commands on the host without isolation): the shell and the warning it reports. */
export interface LocalRuntimeOptions {
  /** Shell for `command` strings; found on the host PATH (then the system paths) when not absolute. Default `bash`. */
  shell?: string;
  /** Replaces the default no-isolation warning added to every result (used by `auto` to say why it fell back). */
  isolationWarning?: string;
}

export const LOCAL_ISOLATION_WARNING =
  'local runtime: the command ran on the host without isolation and could read or change anything this user can';

/**
 * Runs commands as plain host processes: for development and for hosts without bubblewrap. It
 * keeps the run's contract (exact environment, cwd, stdin, caps, whole-tree timeout) but confines
 * nothing, and says so on every result. The command's fields were checked above it
 * (`validateRuntimeCommand`); it resolves only its folders, which must exist to spawn in.
 */
export class LocalRuntime implements WorkspaceRuntime {
  readonly kind = 'local';
  readonly isolated = false;
  readonly shell: string;
  private readonly isolationWarning: string;
  private readonly processes = new HostProcessRegistry();

  constructor(options: LocalRuntimeOptions = {}) {
    validateOptions('LocalRuntime', localRuntimeOptionsSchema, options);
    const shellName = options.shell ?? 'bash';
    const shell = findExecutable(shellName) ?? findExecutable(shellName, SYSTEM_PATH);
    if (!shell)
      throwConfigError(
        'LocalRuntime',
        'shell',
        `names no executable: "${shellName}" is not on PATH or in ${SYSTEM_PATH}`,
      );
    this.shell = shell;
    this.isolationWarning = options.isolationWarning ?? LOCAL_ISOLATION_WARNING;
  }

  /** Local processes see the host as it is. */
  guestPath(hostPath: string, _workspaceRoot?: string): string {
    return hostPath;
  }

  /** The workspace is a host folder: the host reaches its files directly. */
  files(workspaceRoot: string): WorkspaceFiles {
    return new HostWorkspaceFiles(workspaceRoot);
  }

  run(command: RuntimeCommand): Promise<RuntimeResult> {
    return withRunSpan(this.kind, async () => {
      const { cwd } = resolveHostCommandFolders(command);
      const [file, ...args] = command.argv ?? shellArgv(this.shell, command.command as string);
      const outcome = await runProcess({
        file: file as string,
        args,
        cwd,
        ...commandProcessFields(command),
        displayName: command.argv?.[0] ?? this.shell,
      });
      return { ...outcome, warnings: [this.isolationWarning, ...outcome.warnings] };
    });
  }

  /** A background host process, as unconfined as `run` (and with the same warning, on its exit). */
  async start(command: RuntimeProcessCommand): Promise<RuntimeProcess> {
    const { cwd } = resolveHostCommandFolders(command);
    const [file, ...args] = command.argv ?? shellArgv(this.shell, command.command as string);
    const isolationWarning = this.isolationWarning;
    const started = startHostProcess({
      file: file as string,
      args,
      cwd,
      env: { ...command.env },
      lifetimeMs: command.timeoutMs,
      maxUnreadBytes: command.maxOutputBytes,
      displayName: command.argv?.[0] ?? this.shell,
      onExit: async () => ({ warnings: [isolationWarning] }),
    });
    return this.processes.add(command.workspaceRoot, started);
  }

  stopProcesses(workspaceRoot: string): Promise<void> {
    return this.processes.stop(workspaceRoot);
  }
}
