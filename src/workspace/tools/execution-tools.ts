import type { ToolDefinition } from '../../tools/types.js';
import { type ExecutionToolsOptions, resolveExecutionOptions } from './execution-options.js';
import { createSkillRunTool } from './skill-run-tool.js';
import { createWorkspaceExecTool } from './workspace-exec-tool.js';

/**
 * The model-facing execution tools, `[skill_run, workspace_exec]`, for `createSkillTools({ profile:
 * 'full', executionTools })` or any framework adapter. Options are validated here.
 */
export function createExecutionTools(options: ExecutionToolsOptions): ToolDefinition[] {
  const resolved = resolveExecutionOptions(options);
  return [createSkillRunTool(resolved) as ToolDefinition, createWorkspaceExecTool(resolved) as ToolDefinition];
}
