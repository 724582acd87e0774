import type { SkillRepository } from '../../repository/types.js';
import type { WorkspaceRuntime } from '../../runtime/runtime-types.js';
import type { ToolDefinition } from '../../tools/types.js';
import { WorkspaceManager } from '../workspace-manager.js';
import {
  applyExecutionDefaults,
  type ExecutionToolsOptions,
  type ResolvedExecutionOptions,
} from './execution-options.js';
import { executionToolsOf } from './execution-tools.js';

/** How an agent or a toolkit runs skill scripts: a runtime, a workspace manager, or ready-made execution tools. */
export interface ExecutionSetupOptions {
  /**
   * Runs skill scripts: with a runtime (`createRuntime({ kind })`) a workspace manager and the
   * `skill_run` / `workspace_exec` tools are created, and the profile defaults to `full`. Without
   * one (and without `executionTools`) the skills are knowledge-only.
   */
  runtime?: WorkspaceRuntime;
  /** A workspace manager to use instead of one made from `runtime` (to share workspaces or set their folder). */
  workspaces?: WorkspaceManager;
  /** Options of the execution tools (command policy, host inputs, limits, network). */
  execution?: Omit<ExecutionToolsOptions, 'workspaces'>;
  /** The workspace layer's `skill_run` and `workspace_exec`, made by you (instead of `runtime` / `workspaces`). */
  executionTools?: readonly ToolDefinition[];
}

/** What `executionSetup` made: the workspace manager and execution tools, and the options they use. */
export interface ExecutionSetup {
  workspaces: WorkspaceManager | undefined;
  executionTools: readonly ToolDefinition[] | undefined;
  /** Set when the tools were made here from `runtime` or `workspaces`. */
  execution?: ResolvedExecutionOptions;
}

/** The workspace manager, the execution tools and their resolved options, for options a schema already checked. */
export function executionSetup(options: ExecutionSetupOptions, repository: SkillRepository): ExecutionSetup {
  // The factories that call this checked the combination first (executionOptionRules in
  // integrations/skill-integration-options-schema.ts).
  if (options.executionTools !== undefined) return { workspaces: undefined, executionTools: options.executionTools };
  if (options.runtime === undefined && options.workspaces === undefined)
    return { workspaces: undefined, executionTools: undefined };
  // The runtime and the execution options were checked by the caller's schema, so neither is checked again.
  const workspaces = options.workspaces ?? new WorkspaceManager({ runtime: options.runtime!, repository });
  // The agent's repository (filtered when a filter is set), not the manager's: a skill hidden from a
  // user must not reach the user's workspace by staging or a `skill://` input.
  const execution = applyExecutionDefaults({ ...options.execution, workspaces, repository });
  return { workspaces, executionTools: executionToolsOf(execution), execution };
}
