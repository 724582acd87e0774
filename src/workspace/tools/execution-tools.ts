import type { ToolDefinition } from '../../tools/types.js';
import { type ExecutionToolsOptions, resolveExecutionOptions } from './execution-options.js';
import { createWorkspaceKillTool, createWorkspacePollTool, createWorkspaceWriteStdinTool } from './process-tools.js';
import { createSkillRunTool } from './skill-run-tool.js';
import { createWorkspaceExecTool } from './workspace-exec-tool.js';

/**
 * The model-facing execution tools, `[skill_run, workspace_exec]`, plus `workspace_write_stdin`,
 * `workspace_poll` and `workspace_kill` for background processes when the runtime can start them
 * and `backgroundProcesses` is not `false`, for `createSkillTools({ profile: 'full',
 * executionTools })` or any framework adapter. Options are validated here.
 */
export function createExecutionTools(options: ExecutionToolsOptions): ToolDefinition[] {
  const resolved = resolveExecutionOptions(options);
  const tools = [createSkillRunTool(resolved) as ToolDefinition, createWorkspaceExecTool(resolved) as ToolDefinition];
  if (resolved.background.enabled && resolved.workspaces.runtime.start !== undefined) {
    tools.push(
      createWorkspaceWriteStdinTool(resolved) as ToolDefinition,
      createWorkspacePollTool(resolved) as ToolDefinition,
      createWorkspaceKillTool(resolved) as ToolDefinition,
    );
  }
  return tools;
}
