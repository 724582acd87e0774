import type { ToolCallDescription, ToolContext } from '../../tools/types.js';
import type { ResolvedExecutionOptions } from './execution-options.js';

/** Longest command text a description carries per process: a person reads it, a loop may be long. */
const maxDescribedCommand = 500;

/**
 * The session's background processes running now, for a call's description: each with the skills
 * it was started beside, so a person (and the approval gate) can see which of them a skill the
 * call stages would newly reach. Empty (no field) when background processes are off or none runs.
 */
export async function runningBackgroundProcesses(
  options: ResolvedExecutionOptions,
  context: ToolContext,
): Promise<Pick<ToolCallDescription, 'backgroundProcesses'>> {
  if (!options.background.enabled) return {};
  const workspace = await options.workspaces.workspace({
    ...(context.appName !== undefined ? { appName: context.appName } : {}),
    ...(context.userId !== undefined ? { userId: context.userId } : {}),
    sessionId: context.sessionId,
  });
  const running = workspace.processes.list().filter((record) => record.exit === undefined);
  if (running.length === 0) return {};
  return {
    backgroundProcesses: running.map((record) => ({
      id: record.id,
      command:
        record.command.length > maxDescribedCommand
          ? `${record.command.slice(0, maxDescribedCommand)}… (${record.command.length} characters)`
          : record.command,
      skills: [...record.skills],
    })),
  };
}
