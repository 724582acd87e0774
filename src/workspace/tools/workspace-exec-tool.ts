import { z } from 'zod';
import { runnableSkillNames } from '../../disclosure/skill-activation.js';
import { SkillNotFoundError } from '../../repository/errors.js';
import type { StateView } from '../../state/state-view.js';
import { SkillToolError } from '../../tools/errors.js';
import type { ToolContext, ToolDefinition } from '../../tools/types.js';
import type { Workspace } from '../workspace.js';
import { maxYieldMs } from './background-process-options.js';
import { executeCommand } from './execute-command.js';
import type { ResolvedExecutionOptions } from './execution-options.js';
import type { ProcessPollResult } from './process-result.js';
import type { SkillRunResult } from './run-result.js';
import { runningBackgroundProcesses } from './running-background-processes.js';
import { defaultOutputs, skillsInWorkspace, stagedFilesOf } from './skill-run-tool.js';
import { startBackgroundCommand } from './start-background-command.js';

const inputSchema = z.object({
  command: z.string().min(1).describe('Shell command, run with bash in the workspace root.'),
  cwd: z
    .string()
    .optional()
    .describe(
      'Folder to run in, relative to the workspace root (skills/<name>, work, out, runs/...). Default: the root.',
    ),
  env: z.record(z.string(), z.string()).optional().describe('Extra environment variables.'),
  stdin: z.string().optional().describe("Text fed to the command's standard input."),
  timeout: z
    .number()
    .positive()
    .optional()
    .describe('Seconds before the command and everything it started are killed.'),
  output_files: z
    .array(z.string())
    .optional()
    .describe('Globs of files to return, e.g. ["out/**"]. Default: files this run wrote under out/.'),
  background: z
    .boolean()
    .optional()
    .describe(
      'Start the command and return at once with a process_id (servers, watchers, interactive programs); ' +
        'then use workspace_poll, workspace_write_stdin and workspace_kill. timeout is then its lifetime.',
    ),
  yield_ms: z
    .number()
    .min(0)
    .max(maxYieldMs)
    .optional()
    .describe('With background: milliseconds to wait for first output before returning (default 1000).'),
  tty: z
    .boolean()
    .optional()
    .describe(
      'With background: run under a pseudo-terminal, for programs that need one (output then comes on stdout only, with echo and CRLF line ends).',
    ),
});

export type WorkspaceExecInput = z.infer<typeof inputSchema>;

/** Skills the agent has loaded (or, in `once` mode, loaded earlier in this turn), from the disclosure state. */
export function loadedSkills(state: StateView, agentName: string): string[] {
  return runnableSkillNames(state, agentName);
}

/** `workspace_exec`: a shell in the session's workspace, with every loaded skill staged first. */
export function createWorkspaceExecTool(
  options: ResolvedExecutionOptions,
): ToolDefinition<WorkspaceExecInput, SkillRunResult | ProcessPollResult> {
  const background = options.background.enabled && options.workspaces.runtime.start !== undefined;
  const stageLoadedSkills = async (workspace: Workspace, context: ToolContext): Promise<string[]> => {
    const warnings: string[] = [];
    for (const name of loadedSkills(context.state, context.agentName)) {
      try {
        const staged = await workspace.stageSkill(name, context.skillContext, options.repository);
        if (staged.staged) warnings.push(...staged.warnings);
      } catch (error) {
        // A loaded skill that has since disappeared must not block commands on the others.
        if (!(error instanceof SkillNotFoundError)) throw error;
        warnings.push(`loaded skill "${name}" is no longer available and was not staged`);
      }
    }
    return warnings;
  };
  return {
    name: 'workspace_exec',
    description:
      'Run a shell command in the session workspace root (skills/<name>/ holds each loaded skill; work/ is shared scratch, work/inputs/ holds inputs, out/ is for results). ' +
      'Without a prior skill_load, a skill is not under skills/. Returns stdout, stderr, exit_code, timed_out and output_files, as skill_run does.' +
      (background
        ? ' With background: true it returns a process_id at once, with the first output (status "running"); no output_files then.'
        : '') +
      options.policy.describe(),
    inputSchema: (background
      ? inputSchema
      : inputSchema.omit({ background: true, yield_ms: true })) as z.ZodType<WorkspaceExecInput>,
    async describeCall(input, context) {
      const staged = loadedSkills(context.state, context.agentName);
      return {
        command: input.command,
        ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
        stagedSkills: staged,
        skillsInWorkspace: await skillsInWorkspace(options, context, staged),
        ...(await stagedFilesOf(staged, options, context)),
        inputs: [],
        outputs: input.output_files ?? [defaultOutputs],
        ...(await runningBackgroundProcesses(options, context)),
      };
    },
    async execute(input, context) {
      if (input.tty === true && input.background !== true)
        throw new SkillToolError('workspace_exec: tty needs background: true (a terminal is for programs you talk to)');
      if (input.background === true) {
        if (!background) {
          throw new SkillToolError(
            options.background.enabled
              ? `workspace_exec: the ${options.workspaces.runtime.kind} runtime cannot run commands in the background; run it without background`
              : 'workspace_exec: background processes are turned off here; run the command without background',
          );
        }
        return startBackgroundCommand(
          options,
          {
            command: input.command,
            cwd: input.cwd,
            env: input.env,
            timeoutSeconds: input.timeout,
            yieldMs: input.yield_ms ?? 1000,
            ...(input.tty === undefined ? {} : { tty: input.tty }),
            prepare: (workspace) => stageLoadedSkills(workspace, context),
          },
          context,
        );
      }
      return executeCommand(
        options,
        {
          tool: 'workspace_exec',
          command: input.command,
          cwd: input.cwd,
          env: input.env,
          stdin: input.stdin,
          timeoutSeconds: input.timeout,
          outputFiles: input.output_files,
          prepare: (workspace) => stageLoadedSkills(workspace, context),
        },
        context,
      );
    },
  };
}
