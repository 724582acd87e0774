import { runnableSkillNames } from '../../disclosure/skill-activation.js';
import { findExecutable, SYSTEM_PATH } from '../../runtime/find-executable.js';
import { assertAllowedVariable } from '../../runtime/run-environment.js';
import { SkillToolError } from '../../tools/errors.js';
import type { ToolContext } from '../../tools/types.js';
import type { Workspace } from '../workspace.js';
import { toWorkspaceRelative } from '../workspace-paths.js';
import { quotaWarning, unlimited, watchLimits, watchWorkspaceQuota } from '../workspace-quota.js';
import { maxYieldMs } from './background-process-options.js';
import { translateErrors } from './execute-command.js';
import type { ResolvedExecutionOptions } from './execution-options.js';
import { type ProcessPollResult, shapeProcessResult } from './process-result.js';

/** `workspace_exec` with `background: true`, after the tool's own parsing. */
export interface BackgroundCommandRequest {
  command: string;
  cwd?: string;
  env?: Record<string, string>;
  /** Lifetime in seconds; default and cap: the options' `maxLifetimeSeconds`. */
  timeoutSeconds?: number;
  /** How long to wait for first output before returning (ms). */
  yieldMs: number;
  /**
   * Run under a pseudo-terminal: util-linux `script` (from the system folders, which the sandbox
   * mounts) allocates one inside the sandbox and runs the command there, so no native module is
   * needed. Output then arrives on stdout only, with the terminal's echo and CRLF line ends.
   */
  tty?: boolean;
  /** Stages loaded skills; returns warnings. */
  prepare?: (workspace: Workspace) => Promise<string[]>;
}

/**
 * Starts a command in the background in the session's workspace and returns its id with whatever
 * it printed within `yieldMs`. The same checks as a run (command policy, environment names, cwd)
 * come first, so a refused call starts nothing; the same confinement applies (the runtime's
 * `start`); the workspace quota is watched for the process's life and a process that grows the
 * workspace past it is killed.
 */
export async function startBackgroundCommand(
  options: ResolvedExecutionOptions,
  request: BackgroundCommandRequest,
  context: ToolContext,
): Promise<ProcessPollResult> {
  return translateErrors('workspace_exec', async () => {
    const limits = options.background;
    if (!limits.enabled)
      throw new SkillToolError(
        'workspace_exec: background processes are turned off here; run the command without background',
      );
    const warnings: string[] = [];
    const command = request.command.trim();
    if (command === '') throw new SkillToolError('workspace_exec: command is empty; pass the shell command to run');
    let argv = options.policy.check(command);
    const restricted = options.policy.restricted;
    if (request.tty === true) {
      // `script` runs its command through a shell: with allow/deny lists that would run programs unchecked.
      if (restricted)
        throw new SkillToolError(
          'workspace_exec: tty is not available when command allow/deny lists are set; run without tty',
        );
      const script = findExecutable('script', SYSTEM_PATH);
      if (script === undefined)
        throw new SkillToolError(
          'workspace_exec: tty needs util-linux `script`, which this host does not have; run without tty',
        );
      // -q: no banner; -e: its exit status is the command's; -f: output is flushed at once; /dev/null: no typescript file.
      argv = [script, '-qefc', command, '/dev/null'];
    }
    for (const [name, value] of Object.entries(request.env ?? {})) assertAllowedVariable(name, value, { restricted });
    let lifetimeSeconds = request.timeoutSeconds ?? limits.maxLifetimeSeconds;
    if (!Number.isFinite(lifetimeSeconds) || lifetimeSeconds <= 0)
      throw new SkillToolError('workspace_exec: timeout must be a positive number of seconds');
    if (lifetimeSeconds > limits.maxLifetimeSeconds) {
      warnings.push(
        `timeout ${lifetimeSeconds}s capped to ${limits.maxLifetimeSeconds}s, the longest a background process may live`,
      );
      lifetimeSeconds = limits.maxLifetimeSeconds;
    }
    const workspace = await options.workspaces.workspace({
      ...(context.appName !== undefined ? { appName: context.appName } : {}),
      ...(context.userId !== undefined ? { userId: context.userId } : {}),
      sessionId: context.sessionId,
    });
    if (request.cwd !== undefined && request.cwd.trim() !== '') toWorkspaceRelative(request.cwd, '', workspace.paths);
    if (request.prepare !== undefined)
      warnings.push(
        ...(await workspace.exclusive(() => (request.prepare as NonNullable<typeof request.prepare>)(workspace))),
      );

    const quota = options.workspaceQuota;
    const watched = Number.isFinite(quota.maxBytes) || Number.isFinite(quota.maxFiles);
    const baseline = watched ? await workspace.usage(unlimited) : undefined;
    const record = await workspace.start({
      ...(argv === undefined ? { command } : { argv }),
      cwd: request.cwd,
      env: request.env,
      hostEnv: options.hostEnvironment,
      timeoutMs: Math.round(lifetimeSeconds * 1000),
      maxOutputBytes: limits.maxBufferedOutputBytes,
      network: options.network,
      restricted,
      readOnlyPaths: options.readOnlyPaths,
      maxConcurrent: limits.maxConcurrent,
      // What its start was judged against besides the skills staged now: the loaded ones.
      reachableSkills: runnableSkillNames(context.state, context.agentName),
    });
    if (baseline !== undefined) {
      const stopWatching = watchWorkspaceQuota(workspace.files, watchLimits(quota, baseline), (limit, usage) => {
        record.notes.push(quotaWarning(limit, usage, quota, true));
        record.limitsHit.push(limit);
        void record.handle.kill();
      });
      void record.handle.exited.then(stopWatching, stopWatching);
    }
    const output = await record.handle.read(Math.min(Math.max(0, request.yieldMs), maxYieldMs));
    return shapeProcessResult(record, output, limits.maxBufferedOutputBytes, warnings);
  });
}
