import { OptionProblems } from '../../config/option-problems.js';
import { validateOptions } from '../../config/validate-options.js';
import type { SkillRepository } from '../../repository/types.js';
import { CommandPolicy } from '../../runtime/command-policy.js';
import { assertAllowedVariable } from '../../runtime/run-environment.js';
import { maxRuntimeTimeoutMs } from '../../runtime/validate-command.js';
import { defaultOutputLimits, type OutputLimits } from '../outputs/output-collector.js';
import { validateReadOnlyPaths } from '../read-only-paths.js';
import type { WorkspaceManager } from '../workspace-manager.js';
import { executionToolsOptionsSchema } from '../workspace-options-schema.js';
import { defaultWorkspaceQuota, type WorkspaceQuota } from '../workspace-quota.js';
import {
  type BackgroundProcessOptions,
  type ResolvedBackgroundProcessOptions,
  resolveBackgroundProcessOptions,
} from './background-process-options.js';
import { defaultInlineLimits, type InlineLimits } from './run-result.js';

/** Options of `createExecutionTools`: the workspace manager, command policy, timeouts and environment. */
export interface ExecutionToolsOptions {
  workspaces: WorkspaceManager;
  /**
   * Refuse `skill_run` for a skill the agent has not `skill_load`ed in this session (default true).
   * Set false when the tools are used without the disclosure tools.
   */
  requireSkillLoaded?: boolean;
  /** Only these programs may run; commands are then split and run without a shell. */
  allowedCommands?: readonly string[];
  /** These programs never run; commands are then split and run without a shell. */
  deniedCommands?: readonly string[];
  /** Host environment variables passed through by name (none by default). */
  allowHostEnv?: readonly string[];
  /** Where allowed host variables are read from; default `process.env`. */
  hostEnv?: NodeJS.ProcessEnv;
  /**
   * Whether `inputs` may name host paths: false (default: a model must not copy host files into
   * its sandbox), true, or a list of host folders below which paths are allowed.
   */
  hostInputs?: boolean | readonly string[];
  /** Give commands network access (default false: the sandbox has none). */
  network?: boolean;
  /**
   * Host paths commands may read but not write, besides those of the workspace manager: absolute,
   * existing, not `/`, not inside or above the manager's `baseDir`.
   */
  readOnlyPaths?: readonly string[];
  /** Timeout when the call gives none; default 300 s. */
  defaultTimeoutSeconds?: number;
  /**
   * Largest timeout a call may ask for; default 1800 s, at most `maxTimeoutLimitSeconds` (2147483 s).
   * Larger requests are capped with a warning.
   */
  maxTimeoutSeconds?: number;
  /** Bytes of stdout and of stderr kept each; default 16 KiB. */
  maxOutputBytes?: number;
  /** Caps on collected files (count, bytes per file, bytes in all). */
  outputLimits?: Partial<OutputLimits>;
  /** Caps on text inlined in results. */
  inlineLimits?: Partial<InlineLimits>;
  /**
   * What one session's workspace may hold: `maxBytes` of disk (default 1 GiB) and `maxFiles`
   * entries (default 50,000). A command that grows the workspace past either is stopped and the
   * result says so in `limits_hit` (`disk`, `files`). `Infinity` turns a limit off.
   */
  workspaceQuota?: Partial<WorkspaceQuota>;
  /** Visible skill names: when given, the `skill` input is an enum of them (docs/tools.md). */
  skillNames?: readonly string[];
  /**
   * The repository skills are staged from and `skill://` inputs read, when it is not the workspace
   * manager's: an agent with a visibility filter passes its filtered one, so a skill hidden from a
   * user cannot reach that user's workspace by any route.
   */
  repository?: SkillRepository;
  /**
   * `true` or limits offer `workspace_exec` with `background: true` and its companion tools
   * (`workspace_write_stdin`, `workspace_poll`, `workspace_kill`). Off by default: they add about
   * 580 tokens to every request. They are left out when the runtime cannot start background
   * processes.
   */
  backgroundProcesses?: BackgroundProcessOptions | boolean;
  /**
   * `true` offers the workspace file tools (`workspace_list`, `workspace_read`, `workspace_write`,
   * `workspace_edit`, `workspace_glob`, `workspace_grep`; docs/file-tools.md). Off by default, as
   * background processes are: their definitions add to every request's tokens.
   */
  fileTools?: boolean;
}

export interface ResolvedExecutionOptions {
  workspaces: WorkspaceManager;
  requireSkillLoaded: boolean;
  policy: CommandPolicy;
  hostEnvironment: Record<string, string>;
  hostInputs: boolean | readonly string[];
  network: boolean;
  readOnlyPaths: readonly string[];
  defaultTimeoutSeconds: number;
  maxTimeoutSeconds: number;
  maxOutputBytes: number;
  outputLimits: OutputLimits;
  inlineLimits: InlineLimits;
  workspaceQuota: WorkspaceQuota;
  skillNames?: readonly string[];
  repository?: SkillRepository;
  background: ResolvedBackgroundProcessOptions;
  fileTools: boolean;
}

export const defaultTimeoutSeconds = 300;
export const defaultMaxTimeoutSeconds = 1800;
export const defaultMaxOutputBytes = 16 * 1024;
/** The largest `maxTimeoutSeconds`: a runtime refuses more than `maxRuntimeTimeoutMs`. */
export const maxTimeoutLimitSeconds = Math.floor(maxRuntimeTimeoutMs / 1000);

/** The limits `executionToolsOptionsSchema` and `executionSettingsSchema` check timeouts against. */
export const executionLimits = { defaultTimeoutSeconds, defaultMaxTimeoutSeconds, maxTimeoutLimitSeconds };

/** Validates every option up front, so a misconfiguration fails at construction and names the option. */
export function resolveExecutionOptions(options: ExecutionToolsOptions): ResolvedExecutionOptions {
  validateOptions('createExecutionTools', executionToolsOptionsSchema(executionLimits), options);
  return applyExecutionDefaults(options);
}

/**
 * The options with their defaults, for options a schema already checked (`createExecutionTools`'s,
 * or `executionSettingsSchema` inside a toolkit's or an agent's). Only what no schema can see is
 * checked here: variables refused by name, programs looked up on this machine, folders on disk.
 */
export function applyExecutionDefaults(options: ExecutionToolsOptions): ResolvedExecutionOptions {
  const { workspaces } = options;
  const defaultTimeout = options.defaultTimeoutSeconds ?? defaultTimeoutSeconds;
  const maxTimeout = options.maxTimeoutSeconds ?? Math.max(defaultMaxTimeoutSeconds, defaultTimeout);
  const outputLimits: OutputLimits = {
    maxFiles: options.outputLimits?.maxFiles ?? defaultOutputLimits.maxFiles,
    maxFileBytes: options.outputLimits?.maxFileBytes ?? defaultOutputLimits.maxFileBytes,
    maxTotalBytes: options.outputLimits?.maxTotalBytes ?? defaultOutputLimits.maxTotalBytes,
  };
  const inlineLimits: InlineLimits = {
    fileBytes: options.inlineLimits?.fileBytes ?? defaultInlineLimits.fileBytes,
    totalBytes: options.inlineLimits?.totalBytes ?? defaultInlineLimits.totalBytes,
    primaryBytes: options.inlineLimits?.primaryBytes ?? defaultInlineLimits.primaryBytes,
  };
  const limit = (value: number | undefined, fallback: number): number =>
    value === Infinity ? Infinity : Math.floor(value ?? fallback);
  const workspaceQuota: WorkspaceQuota = {
    maxBytes: limit(options.workspaceQuota?.maxBytes, defaultWorkspaceQuota.maxBytes),
    maxFiles: limit(options.workspaceQuota?.maxFiles, defaultWorkspaceQuota.maxFiles),
  };
  // What the schema cannot see: variables refused by name and programs looked up on this machine.
  const problems = new OptionProblems('createExecutionTools');
  const hostEnv = options.hostEnv ?? process.env;
  const hostEnvironment: Record<string, string> = {};
  for (const [index, name] of (options.allowHostEnv ?? []).entries()) {
    try {
      assertAllowedVariable(name, hostEnv[name] ?? '');
    } catch (error) {
      problems.add(`allowHostEnv[${index}]`, (error as Error).message);
      continue;
    }
    const value = hostEnv[name];
    if (value !== undefined) hostEnvironment[name] = value;
  }
  const hostInputs = options.hostInputs ?? false;
  let policy: CommandPolicy | undefined;
  try {
    policy = new CommandPolicy({ allowedCommands: options.allowedCommands, deniedCommands: options.deniedCommands });
  } catch (error) {
    problems.add('allowedCommands', (error as Error).message.replace(/^allowedCommands /, ''));
  }
  problems.throwIfAny();
  return {
    workspaces,
    requireSkillLoaded: options.requireSkillLoaded ?? true,
    policy: policy as CommandPolicy,
    hostEnvironment,
    hostInputs,
    network: options.network ?? false,
    readOnlyPaths: validateReadOnlyPaths(
      'readOnlyPaths',
      options.readOnlyPaths,
      workspaces.baseDir,
      'createExecutionTools',
    ),
    defaultTimeoutSeconds: defaultTimeout,
    maxTimeoutSeconds: maxTimeout,
    maxOutputBytes: Math.floor(options.maxOutputBytes ?? defaultMaxOutputBytes),
    outputLimits,
    inlineLimits,
    workspaceQuota,
    skillNames: options.skillNames,
    ...(options.repository !== undefined ? { repository: options.repository } : {}),
    background: resolveBackgroundProcessOptions(options.backgroundProcesses),
    fileTools: options.fileTools === true,
  };
}
