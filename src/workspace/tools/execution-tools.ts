import type { ToolContext, ToolDefinition } from '../../tools/types.js';
import {
  type ExecutionToolsOptions,
  type ResolvedExecutionOptions,
  resolveExecutionOptions,
} from './execution-options.js';
import { createWorkspaceGrepTool } from './files/workspace-grep-tool.js';
import {
  createWorkspaceGlobTool,
  createWorkspaceListTool,
  createWorkspaceReadTool,
} from './files/workspace-read-tools.js';
import { createWorkspaceEditTool, createWorkspaceWriteTool } from './files/workspace-write-tools.js';
import { createWorkspaceKillTool, createWorkspacePollTool, createWorkspaceWriteStdinTool } from './process-tools.js';
import { createSkillRunTool } from './skill-run-tool.js';
import { createWorkspaceExecTool } from './workspace-exec-tool.js';

/**
 * The model-facing execution tools, `[skill_run, workspace_exec]`, plus `workspace_write_stdin`,
 * `workspace_poll` and `workspace_kill` for background processes when the runtime can start them
 * and `backgroundProcesses` is not `false`, and the workspace file tools with `fileTools: true`, for `createSkillTools({ profile: 'full',
 * executionTools })` or any framework adapter. Options are validated here.
 */
export function createExecutionTools(options: ExecutionToolsOptions): ToolDefinition[] {
  return executionToolsOf(resolveExecutionOptions(options));
}

/** The execution tools for options already checked and resolved (a toolkit or an agent checked them with its own). */
export function executionToolsOf(resolved: ResolvedExecutionOptions): ToolDefinition[] {
  const tools = [createSkillRunTool(resolved) as ToolDefinition, createWorkspaceExecTool(resolved) as ToolDefinition];
  if (resolved.background.enabled && resolved.workspaces.runtime.start !== undefined) {
    tools.push(
      createWorkspaceWriteStdinTool(resolved) as ToolDefinition,
      createWorkspacePollTool(resolved) as ToolDefinition,
      createWorkspaceKillTool(resolved) as ToolDefinition,
    );
  }
  if (resolved.fileTools) {
    tools.push(
      createWorkspaceListTool(resolved) as ToolDefinition,
      createWorkspaceReadTool(resolved) as ToolDefinition,
      createWorkspaceWriteTool(resolved) as ToolDefinition,
      createWorkspaceEditTool(resolved) as ToolDefinition,
      createWorkspaceGlobTool(resolved) as ToolDefinition,
      createWorkspaceGrepTool(resolved) as ToolDefinition,
    );
  }
  const endSession = endSessionOf(resolved);
  const sessionHoldsWork: NonNullable<ToolDefinition['sessionHoldsWork']> = (context) =>
    resolved.workspaces.holdsWork(workspaceKeyOf(context));
  for (const tool of tools) {
    tool.endSession = endSession;
    tool.sessionHoldsWork = sessionHoldsWork;
  }
  return tools;
}

function workspaceKeyOf(context: Pick<ToolContext, 'appName' | 'userId' | 'sessionId'>) {
  return {
    ...(context.appName !== undefined ? { appName: context.appName } : {}),
    ...(context.userId !== undefined ? { userId: context.userId } : {}),
    sessionId: context.sessionId,
  };
}

/**
 * What ending a session means for its workspace, shared by the whole set (an integration calls it
 * once): its background processes are stopped, and a session that can never come back has its
 * workspace removed, not left to the expiry sweep with nobody able to name it.
 */
function endSessionOf(options: ResolvedExecutionOptions): NonNullable<ToolDefinition['endSession']> {
  return async (context, { discard }) => {
    const key = workspaceKeyOf(context);
    if (discard) await options.workspaces.cleanup(key);
    else await options.workspaces.stopProcesses(key);
  };
}
