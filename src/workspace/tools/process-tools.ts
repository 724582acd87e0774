import { z } from 'zod';
import type { ToolContext, ToolDefinition } from '../../tools/types.js';
import type { Workspace } from '../workspace.js';
import { maxYieldMs } from './background-process-options.js';
import { translateErrors } from './execute-command.js';
import type { ResolvedExecutionOptions } from './execution-options.js';
import { type ProcessPollResult, shapeProcessResult } from './process-result.js';
import { skillsInWorkspace } from './skill-run-tool.js';

const processId = z.string().min(1).describe('The process_id that workspace_exec with background: true returned.');
const yieldMs = (fallback: number) =>
  z
    .number()
    .min(0)
    .max(maxYieldMs)
    .optional()
    .describe(`Milliseconds to wait for new output before returning (default ${fallback}, at most ${maxYieldMs}).`);

const writeInputSchema = z.object({
  process_id: processId,
  chars: z.string().optional().describe("Text written to the process's standard input."),
  submit: z.boolean().optional().describe('Append a newline after chars (press Enter).'),
  close_stdin: z.boolean().optional().describe('Close standard input after writing (the process reads end-of-file).'),
  yield_ms: yieldMs(200),
});
const pollInputSchema = z.object({ process_id: processId, yield_ms: yieldMs(1000) });
const killInputSchema = z.object({ process_id: processId });

export type WorkspaceWriteStdinInput = z.infer<typeof writeInputSchema>;
export type WorkspacePollInput = z.infer<typeof pollInputSchema>;
export type WorkspaceKillInput = z.infer<typeof killInputSchema>;

function sessionWorkspace(options: ResolvedExecutionOptions, context: ToolContext): Promise<Workspace> {
  return options.workspaces.workspace({
    ...(context.appName !== undefined ? { appName: context.appName } : {}),
    ...(context.userId !== undefined ? { userId: context.userId } : {}),
    sessionId: context.sessionId,
  });
}

/** `workspace_write_stdin`: input for a background process of this session, then its new output. */
export function createWorkspaceWriteStdinTool(
  options: ResolvedExecutionOptions,
): ToolDefinition<WorkspaceWriteStdinInput, ProcessPollResult> {
  return {
    name: 'workspace_write_stdin',
    description:
      'Write to the standard input of a background process started by workspace_exec with background: true ' +
      '(submit: true appends a newline; close_stdin: true sends end-of-file), then return its new output as workspace_poll does.',
    inputSchema: writeInputSchema,
    writesState: false,
    // Text written to a shell is a command: an approval policy judges it as it judges workspace_exec,
    // against every skill the process can reach now (skills staged after it started included).
    async describeCall(input, context) {
      return {
        command: `${input.chars ?? ''}${input.submit === true ? '\n' : ''}`,
        stagedSkills: [],
        skillsInWorkspace: await skillsInWorkspace(options, context, []),
        stagedFiles: [],
        inputs: [],
        outputs: [],
      };
    },
    async execute(input, context) {
      return translateErrors('workspace_write_stdin', async () => {
        const record = (await sessionWorkspace(options, context)).processes.get(input.process_id);
        const text = `${input.chars ?? ''}${input.submit === true ? '\n' : ''}`;
        if (text !== '') await record.handle.writeStdin(text);
        if (input.close_stdin === true) await record.handle.closeStdin();
        const output = await record.handle.read(input.yield_ms ?? 200);
        return shapeProcessResult(record, output, options.background.maxBufferedOutputBytes);
      });
    },
  };
}

/** `workspace_poll`: the new output of a background process of this session, and its exit once it ended. */
export function createWorkspacePollTool(
  options: ResolvedExecutionOptions,
): ToolDefinition<WorkspacePollInput, ProcessPollResult> {
  return {
    name: 'workspace_poll',
    description:
      'Return the output a background process (workspace_exec with background: true) wrote since the last call about it, ' +
      'waiting up to yield_ms for some; status becomes "exited" with exit_code once it has ended.',
    inputSchema: pollInputSchema,
    writesState: false,
    async execute(input, context) {
      return translateErrors('workspace_poll', async () => {
        const record = (await sessionWorkspace(options, context)).processes.get(input.process_id);
        const output = await record.handle.read(input.yield_ms ?? 1000);
        return shapeProcessResult(record, output, options.background.maxBufferedOutputBytes);
      });
    },
  };
}

/** `workspace_kill`: ends a background process of this session and everything it started. */
export function createWorkspaceKillTool(
  options: ResolvedExecutionOptions,
): ToolDefinition<WorkspaceKillInput, ProcessPollResult> {
  return {
    name: 'workspace_kill',
    description:
      'Kill a background process (workspace_exec with background: true) and everything it started; returns its last output and exit.',
    inputSchema: killInputSchema,
    writesState: false,
    async execute(input, context) {
      return translateErrors('workspace_kill', async () => {
        const record = (await sessionWorkspace(options, context)).processes.get(input.process_id);
        await record.handle.kill();
        const output = await record.handle.read(0);
        return shapeProcessResult(record, output, options.background.maxBufferedOutputBytes);
      });
    },
  };
}
