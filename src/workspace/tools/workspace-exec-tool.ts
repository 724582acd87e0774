import { z } from 'zod';
import { runnableSkillNames } from '../../disclosure/skill-activation.js';
import { SkillNotFoundError } from '../../repository/errors.js';
import type { StateView } from '../../state/state-view.js';
import type { ToolDefinition } from '../../tools/types.js';
import { executeCommand } from './execute-command.js';
import type { ResolvedExecutionOptions } from './execution-options.js';
import type { SkillRunResult } from './run-result.js';
import { defaultOutputs, skillsInWorkspace, stagedFilesOf } from './skill-run-tool.js';

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
});

export type WorkspaceExecInput = z.infer<typeof inputSchema>;

/** Skills the agent has loaded (or, in `once` mode, loaded earlier in this turn), from the disclosure state. */
export function loadedSkills(state: StateView, agentName: string): string[] {
  return runnableSkillNames(state, agentName);
}

/** `workspace_exec`: a shell in the session's workspace, with every loaded skill staged first. */
export function createWorkspaceExecTool(
  options: ResolvedExecutionOptions,
): ToolDefinition<WorkspaceExecInput, SkillRunResult> {
  return {
    name: 'workspace_exec',
    description:
      'Run a shell command in the session workspace root (skills/<name>/ holds each loaded skill; work/ is shared scratch, work/inputs/ holds inputs, out/ is for results). ' +
      'Without a prior skill_load, a skill is not under skills/. Returns stdout, stderr, exit_code, timed_out and output_files, as skill_run does.' +
      options.policy.describe(),
    inputSchema,
    async describeCall(input, context) {
      const staged = loadedSkills(context.state, context.agentName);
      return {
        command: input.command,
        ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
        stagedSkills: staged,
        skillsInWorkspace: await skillsInWorkspace(options, context, staged),
        stagedFiles: await stagedFilesOf(staged, options, context),
        inputs: [],
        outputs: input.output_files ?? [defaultOutputs],
      };
    },
    async execute(input, context) {
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
          prepare: async (workspace) => {
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
          },
        },
        context,
      );
    },
  };
}
