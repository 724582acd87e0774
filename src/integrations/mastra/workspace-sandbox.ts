import type { CommandResult, ExecuteCommandOptions, WorkspaceSandbox } from '@mastra/core/workspace';
import { throwConfigError } from '../../config/option-problems.js';
import { defaultMaxOutputBytes, defaultTimeoutSeconds } from '../../workspace/tools/execution-options.js';
import type { Workspace } from '../../workspace/workspace.js';

/** Options of `createWorkspaceSandbox`: the workspace and the limits of each command. */
export interface WorkspaceSandboxOptions {
  /** The session's workspace (`workspaces.workspace({ userId, sessionId })`); its runtime runs the commands. */
  workspace: Workspace;
  /** Default limit of a command in seconds when Mastra passes no `timeout` (default 300, as skill_run). */
  timeoutSeconds?: number;
  /** Bytes kept of stdout and of stderr each (default 16 KiB, as skill_run). */
  maxOutputBytes?: number;
  /** Let commands reach the network (default false). */
  network?: boolean;
}

/** One argument as bash reads it literally. */
function shellQuoted(argument: string): string {
  return `'${argument.replace(/'/g, `'\\''`)}'`;
}

/** Only the string values of an environment: nothing of the host's is added. */
function stringEnv(env: ExecuteCommandOptions['env']): Record<string, string> | undefined {
  if (env === undefined) return undefined;
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/**
 * A skillbox workspace as a Mastra `WorkspaceSandbox`: `new Workspace({ sandbox })` then runs
 * Mastra's `execute_command` tool through the workspace's runtime; with
 * `createRuntime({ kind: 'sandbox' })` that is bubblewrap, where the workspace is `/workspace`
 * and the host's home, files and environment are not there. Output is handed to `onStdout` /
 * `onStderr` once the command ends (not streamed).
 */
export function createWorkspaceSandbox(options: WorkspaceSandboxOptions): WorkspaceSandbox {
  if (typeof options?.workspace?.run !== 'function')
    throwConfigError(
      'createWorkspaceSandbox',
      'workspace',
      'must be a Workspace (workspaces.workspace({ userId, sessionId }))',
    );
  for (const field of ['timeoutSeconds', 'maxOutputBytes'] as const) {
    const value = options[field];
    if (value !== undefined && (!Number.isInteger(value) || value <= 0))
      throwConfigError(
        'createWorkspaceSandbox',
        field,
        `must be a positive whole number; got ${JSON.stringify(value)}`,
      );
  }
  const { workspace } = options;
  const maxOutputBytes = options.maxOutputBytes ?? defaultMaxOutputBytes;
  const defaultTimeoutMs = (options.timeoutSeconds ?? defaultTimeoutSeconds) * 1000;
  return {
    id: `skillbox:${workspace.artifactScope}`,
    name: 'skillbox workspace',
    provider: 'skillbox',
    status: 'running',
    async snapshot() {
      // A workspace is a folder the runtime keeps; there is no checkpoint to take.
    },
    getInstructions() {
      return `Commands run in the session workspace at ${workspace.paths.guestRoot} (folders work/, out/, skills/); files outside it are not visible${options.network === true ? '' : ' and there is no network'}.`;
    },
    async executeCommand(command, args = [], commandOptions = {}): Promise<CommandResult> {
      const line = [command, ...args.map(shellQuoted)].join(' ');
      const env = stringEnv(commandOptions.env);
      const { result } = await workspace.run({
        command: line,
        timeoutMs: commandOptions.timeout ?? defaultTimeoutMs,
        maxOutputBytes,
        ...(commandOptions.cwd !== undefined ? { cwd: commandOptions.cwd } : {}),
        ...(env !== undefined ? { env } : {}),
        ...(options.network === true ? { network: true } : {}),
        ...(commandOptions.abortSignal !== undefined ? { abortSignal: commandOptions.abortSignal } : {}),
      });
      if (result.stdout !== '') commandOptions.onStdout?.(result.stdout);
      if (result.stderr !== '') commandOptions.onStderr?.(result.stderr);
      return {
        command,
        args,
        success: result.exitCode === 0 && !result.timedOut,
        exitCode: result.exitCode,
        stdout: result.stdout,
        stderr: result.stderr,
        executionTimeMs: Math.round(result.durationMs),
        timedOut: result.timedOut,
        stdoutTruncated: result.stdoutTruncated,
        stderrTruncated: result.stderrTruncated,
        ...(result.stdoutDroppedBytes !== undefined ? { stdoutDroppedBytes: result.stdoutDroppedBytes } : {}),
        ...(result.stderrDroppedBytes !== undefined ? { stderrDroppedBytes: result.stderrDroppedBytes } : {}),
      };
    },
  };
}
