import { SkillboxError } from '../../errors.js';
import { SkillNotFoundError } from '../../repository/errors.js';
import { assertAllowedVariable } from '../../runtime/run-environment.js';
import { inSpan } from '../../telemetry/in-span.js';
import { SkillToolError } from '../../tools/errors.js';
import type { ToolContext } from '../../tools/types.js';
import type { InputSpec } from '../input-stager.js';
import { compileGlob } from '../outputs/glob-pattern.js';
import {
  type CollectedOutputs,
  maxOutputPatterns,
  type OutputLimits,
  outputFingerprint,
} from '../outputs/output-collector.js';
import type { Workspace } from '../workspace.js';
import { toWorkspaceRelative, workspaceFolders } from '../workspace-paths.js';
import {
  type QuotaLimit,
  quotaWarning,
  unlimited,
  type WorkspaceUsage,
  watchLimits,
  watchWorkspaceQuota,
} from '../workspace-quota.js';
import type { ResolvedExecutionOptions } from './execution-options.js';
import { type SkillRunResult, shapeRunResult } from './run-result.js';

/** What `skill_run` and `workspace_exec` share, after their own checks. */
export interface ExecuteCommandRequest {
  tool: 'skill_run' | 'workspace_exec';
  command: string;
  skill?: string;
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
  timeoutSeconds?: number;
  /** Undefined: collect what this run wrote under `out/` (at most `autoCollectLimit` files). */
  outputFiles?: readonly string[];
  inputs?: readonly InputSpec[];
  saveAsArtifacts?: boolean;
  omitInlineContent?: boolean;
  /** Caps of this collection when the call lowered the configured ones (`outputs`). */
  outputLimits?: OutputLimits;
  /** Prepended to the names of saved artifacts (`artifact_prefix`, `outputs.name_template`). */
  artifactPrefix?: string;
  /** Which field asked for the save, so a warning names what the model wrote. */
  saveField?: 'save_as_artifacts' | 'outputs.save';
  /**
   * Variables set for this run by the tool itself (EDITOR for `editor_text`), placed inside the
   * call's turn after staging; they are not the model's `env` and so are not judged as it is.
   */
  toolEnvironment?: (workspace: Workspace) => Promise<Record<string, string>>;
  /** Prepares the workspace (staging) once the cheap checks passed; returns warnings. */
  prepare?: (workspace: Workspace) => Promise<string[]>;
  /** The skill's scripts may run again after a lost run (`metadata.skillbox-retry: safe`); skill_run only. */
  retrySafe?: boolean;
  /** The image the skill names for its scripts (`metadata.skillbox-image`); skill_run only. */
  image?: string;
}

/** Files auto-collected from `out/` when the call names no output_files. */
export const autoCollectLimit = 20;

/**
 * Runs one command for a tool call. Every check that can refuse the call (command policy, env
 * names, timeout, cwd) runs before anything is staged or started, so a refused call changes nothing.
 */
export async function executeCommand(
  options: ResolvedExecutionOptions,
  request: ExecuteCommandRequest,
  context: ToolContext,
): Promise<SkillRunResult> {
  return translateErrors(request.tool, async () => {
    const warnings: string[] = [];
    const { command, argv, restricted, timeoutSeconds } = checkCommandRequest(options, request, warnings);

    const workspace = await options.workspaces.workspace({
      ...(context.appName !== undefined ? { appName: context.appName } : {}),
      ...(context.userId !== undefined ? { userId: context.userId } : {}),
      sessionId: context.sessionId,
    });
    const base = request.skill === undefined ? '' : `${workspaceFolders.skills}/${request.skill}`;
    if (request.cwd !== undefined && request.cwd.trim() !== '') toWorkspaceRelative(request.cwd, base, workspace.paths);
    // Staging, the run and collection hold the workspace's turn: another call on this workspace
    // cannot run a command (which could swap folders for links) while this one stages or collects.
    const { outcome, collected, quotaHit } = await workspace.exclusive(async () => {
      if (request.prepare !== undefined) warnings.push(...(await request.prepare(workspace)));
      if (request.inputs !== undefined && request.inputs.length > 0) {
        await workspace.stageInputs(request.inputs, {
          hostAccess: options.hostInputs,
          skillContext: context.skillContext,
          ...(options.repository !== undefined ? { repository: options.repository } : {}),
        });
      }

      const toolEnvironment = request.toolEnvironment === undefined ? {} : await request.toolEnvironment(workspace);

      // What out/ held before: a file this run copied in with its old times (`cp -p`, `tar -x`) is
      // still new, and one it rewrote keeps its name but not its inode, size or times.
      const before =
        request.outputFiles === undefined ? await workspace.findOutputs([`${workspaceFolders.out}/**`]) : undefined;
      const quota = options.workspaceQuota;
      // Without a finite limit there is nothing to watch, and no walk of the workspace to pay for.
      const watched = Number.isFinite(quota.maxBytes) || Number.isFinite(quota.maxFiles);
      const baseline = watched ? await workspace.usage(unlimited) : { bytes: 0, files: 0 };
      const stopForQuota = new AbortController();
      let stoppedFor: { limit: QuotaLimit; usage: WorkspaceUsage } | undefined;
      const stopWatching = watched
        ? watchWorkspaceQuota(workspace.files, watchLimits(quota, baseline), (limit, usage) => {
            stoppedFor = { limit, usage };
            stopForQuota.abort();
          })
        : () => undefined;
      const abortSignal =
        context.abortSignal === undefined
          ? stopForQuota.signal
          : AbortSignal.any([context.abortSignal, stopForQuota.signal]);
      const outcome = await workspace
        .run({
          ...(argv === undefined ? { command } : { argv }),
          skill: request.skill,
          cwd: request.cwd,
          env: { ...request.env, ...toolEnvironment },
          hostEnv: options.hostEnvironment,
          stdin: request.stdin,
          timeoutMs: Math.round(timeoutSeconds * 1000),
          maxOutputBytes: options.maxOutputBytes,
          network: options.network,
          restricted,
          readOnlyPaths: options.readOnlyPaths,
          abortSignal,
          // A durable turn names each run, so a run ledger answers a repeat with the recorded result.
          ...(context.runIdPrefix !== undefined && context.toolCallId !== undefined
            ? { runId: `${context.runIdPrefix}/${context.toolCallId}` }
            : {}),
          ...(request.retrySafe === true ? { retrySafe: true } : {}),
          ...(request.image === undefined ? {} : { image: request.image }),
        })
        .finally(stopWatching);
      // Measured again after the run: a command faster than the watch still shows what it left.
      const after = stoppedFor?.usage ?? (watched ? await workspace.usage(quota) : baseline);
      const quotaHit = stoppedFor?.limit ?? after.exceeded;
      if (quotaHit !== undefined) warnings.push(quotaWarning(quotaHit, after, quota, stoppedFor !== undefined));

      let collected: CollectedOutputs;
      if (request.outputFiles === undefined) {
        collected = await collectWrittenOutputs(workspace, before, outcome.runDir, options, context.sessionId);
      } else {
        collected = await workspace.collect(request.outputFiles, {
          cwd: outcome.cwd,
          runDir: outcome.runDir,
          limits: request.outputLimits ?? options.outputLimits,
        });
      }
      return { outcome, collected, quotaHit };
    });

    return shapeRunResult({
      run: outcome.result,
      collected,
      inline: options.inlineLimits,
      omitInlineContent: request.omitInlineContent ?? false,
      saveAsArtifacts: request.saveAsArtifacts ?? false,
      ...(request.artifactPrefix !== undefined ? { artifactPrefix: request.artifactPrefix } : {}),
      ...(request.saveField !== undefined ? { saveField: request.saveField } : {}),
      artifacts:
        options.workspaces.artifacts === undefined
          ? undefined
          : { store: options.workspaces.artifacts, scope: workspace.artifactScope },
      warnings,
      limitsHit: quotaHit === undefined ? [] : [quotaHit],
    });
  });
}

/**
 * Errors the model can correct become SkillToolError with the reason and what to do; anything else
 * (a broken disk, a bug) propagates unchanged.
 */
export async function translateErrors<T>(tool: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SkillToolError) throw error;
    if (error instanceof SkillNotFoundError)
      throw new SkillToolError(`${tool}: unknown skill "${error.skill}"; call skill_list to see the available skills`);
    if (error instanceof SkillboxError && correctable.has(error.code))
      throw new SkillToolError(`${tool}: ${error.message}`);
    throw error;
  }
}

const correctable = new Set([
  'WORKSPACE_PATH_REFUSED',
  'WORKSPACE_INPUT_ERROR',
  'RUN_ENV_REFUSED',
  'COMMAND_REFUSED',
  'ARTIFACT_NOT_FOUND',
  'ARTIFACT_NAME_REFUSED',
  'SKILL_STAGING_FAILED',
  'SKILL_PATH_REFUSED',
  'SKILL_FILE_NOT_FOUND',
  'RUNTIME_COMMAND_INVALID',
  'BACKGROUND_PROCESS_REFUSED',
]);

/**
 * The checks that can refuse a call before anything is staged or started: an empty command, the
 * command policy, env names, the timeout (capped, with a warning) and the output patterns (a bad
 * glob found after the command ran would lose its result).
 */
function checkCommandRequest(
  options: ResolvedExecutionOptions,
  request: ExecuteCommandRequest,
  warnings: string[],
): { command: string; argv: string[] | undefined; restricted: boolean; timeoutSeconds: number } {
  const command = request.command.trim();
  if (command === '') throw new SkillToolError(`${request.tool}: command is empty; pass the shell command to run`);
  const argv = options.policy.check(command);
  const restricted = options.policy.restricted;
  for (const [name, value] of Object.entries(request.env ?? {})) assertAllowedVariable(name, value, { restricted });
  let timeoutSeconds = request.timeoutSeconds ?? options.defaultTimeoutSeconds;
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0)
    throw new SkillToolError(`${request.tool}: timeout must be a positive number of seconds`);
  if (timeoutSeconds > options.maxTimeoutSeconds) {
    warnings.push(`timeout ${timeoutSeconds}s capped to ${options.maxTimeoutSeconds}s`);
    timeoutSeconds = options.maxTimeoutSeconds;
  }

  // A bad glob found after the command ran would lose its result.
  if ((request.outputFiles?.length ?? 0) > maxOutputPatterns) {
    throw new SkillToolError(
      `${request.tool}: output_files has ${request.outputFiles?.length} patterns; at most ${maxOutputPatterns} are taken, combine them with {a,b} or **`,
    );
  }
  for (const pattern of request.outputFiles ?? []) compileGlob(pattern.trim());
  return { command, argv, restricted, timeoutSeconds };
}

/**
 * With no output_files: only what this run wrote under out/ (earlier runs' outputs would repeat in
 * every result): files new since the walk before the run, or changed; only the files returned are read.
 */
function collectWrittenOutputs(
  workspace: Workspace,
  before: Awaited<ReturnType<Workspace['findOutputs']>> | undefined,
  runDir: string,
  options: ResolvedExecutionOptions,
  sessionId: string,
): Promise<CollectedOutputs> {
  return inSpan('workspace.collect', { 'workspace.session': sessionId, 'collect.patterns': 1 }, async (span) => {
    const earlier = new Map(before?.matches.map((match) => [match.name, outputFingerprint(match)]));
    const found = await workspace.findOutputs([`${workspaceFolders.out}/**`], { runDir });
    const written = {
      ...found,
      matches: found.matches.filter((match) => earlier.get(match.name) !== outputFingerprint(match)),
    };
    const read = await workspace.readOutputs(written.matches.slice(0, autoCollectLimit), options.outputLimits);
    if (written.matches.length > autoCollectLimit) {
      read.warnings.push(
        `${written.matches.length} files written under out/; the first ${autoCollectLimit} are returned, name the others in output_files`,
      );
    }
    span.setAttribute('collect.files', read.files.length);
    return read;
  });
}
