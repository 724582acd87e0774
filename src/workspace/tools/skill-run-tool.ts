import { z } from 'zod';
import { isSkillRunnable, runnableSkillNames } from '../../disclosure/skill-activation.js';
import { SkillToolError } from '../../tools/errors.js';
import type { ToolCallDescription, ToolContext, ToolDefinition } from '../../tools/types.js';
import { executeCommand } from './execute-command.js';
import type { ResolvedExecutionOptions } from './execution-options.js';
import { refuseUnmetRequirements } from './requirement-gate.js';
import type { SkillRunResult } from './run-result.js';

const inputSchema = (skillNames: readonly string[] | undefined) =>
  z.object({
    skill: (skillNames === undefined ? z.string().min(1) : z.enum(skillNames as [string, ...string[]])).describe(
      'Name of a loaded skill.',
    ),
    command: z
      .string()
      .min(1)
      .describe(
        'Shell command, run with bash in the skill\'s working copy (e.g. "python3 scripts/fib.py 10 > out/fib.txt").',
      ),
    cwd: z
      .string()
      .optional()
      .describe(
        "Folder to run in: relative to the skill's copy, or $WORK_DIR/..., $OUTPUT_DIR/... Default: the skill's copy.",
      ),
    env: z.record(z.string(), z.string()).optional().describe('Extra environment variables.'),
    stdin: z.string().optional().describe("Text fed to the command's standard input."),
    output_files: z
      .array(z.string())
      .optional()
      .describe(
        'Globs of files to return, e.g. ["out/*.txt", "$OUTPUT_DIR/**"]. Default: files this run wrote under out/.',
      ),
    timeout: z
      .number()
      .positive()
      .optional()
      .describe('Seconds before the command and everything it started are killed.'),
    save_as_artifacts: z
      .boolean()
      .optional()
      .describe('Also store the output files as versioned artifacts (artifact://name@version).'),
    omit_inline_content: z.boolean().optional().describe('Return output file metadata and refs without their content.'),
    inputs: z
      .array(
        z.object({
          from: z.string().min(1).describe('workspace://path, skill://name/path or artifact://name[@version].'),
          to: z.string().optional().describe('Destination in the workspace; default work/inputs/<name>.'),
          mode: z.enum(['copy', 'link']).optional(),
        }),
      )
      .optional()
      .describe('Files to place in the workspace before the command runs.'),
  });

export type SkillRunInput = z.infer<ReturnType<typeof inputSchema>>;

/** `skill_run`: one command in the session's workspace, with the skill staged and outputs collected. */
export function createSkillRunTool(options: ResolvedExecutionOptions): ToolDefinition<SkillRunInput, SkillRunResult> {
  return {
    name: 'skill_run',
    description:
      "Run a command from a loaded skill's instructions inside the session workspace (cwd: the skill's folder, with out/, work/ and inputs/ linked in). " +
      'Environment: $WORKSPACE_DIR, $SKILLS_DIR, $WORK_DIR, $OUTPUT_DIR, $RUN_DIR, $SKILL_NAME. Write results to out/ ($OUTPUT_DIR). ' +
      'Returns stdout, stderr, exit_code, timed_out and output_files (text inline, each with a workspace:// ref); treat exit_code != 0 or timed_out as failure.' +
      options.policy.describe(),
    inputSchema: inputSchema(options.skillNames),
    async describeCall(input, context) {
      const skill = input.skill.trim();
      refuseUnloadedSkill(options, skill, context);
      return {
        command: input.command,
        skill,
        ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
        stagedSkills: [skill],
        skillsInWorkspace: await skillsInWorkspace(options, context, [skill]),
        stagedFiles: await stagedFilesOf([skill], options, context),
        inputs: (input.inputs ?? []).map((entry) => ({
          from: entry.from,
          ...(entry.to !== undefined ? { to: entry.to } : {}),
        })),
        outputs: input.output_files ?? [defaultOutputs],
      };
    },
    async execute(input, context) {
      const skill = input.skill.trim();
      refuseUnloadedSkill(options, skill, context);
      await refuseUnmetRequirements(options, skill, context);
      return executeCommand(
        options,
        {
          tool: 'skill_run',
          command: input.command,
          skill,
          cwd: input.cwd,
          env: input.env,
          stdin: input.stdin,
          timeoutSeconds: input.timeout,
          outputFiles: input.output_files,
          inputs: input.inputs,
          saveAsArtifacts: input.save_as_artifacts,
          omitInlineContent: input.omit_inline_content,
          prepare: async (workspace) => {
            const staged = await workspace.stageSkill(skill, context.skillContext, options.repository);
            // Staging notes matter once, when the copy is made, not on every later run.
            return staged.staged ? staged.warnings : [];
          },
        },
        context,
      );
    },
  };
}

function refuseUnloadedSkill(options: ResolvedExecutionOptions, skill: string, context: ToolContext): void {
  if (options.requireSkillLoaded && !isSkillRunnable(context.state, context.agentName, skill)) {
    throw new SkillToolError(
      `skill_run requires skill_load first for "${skill}": call skill_load with {"skill": "${skill}"}, read its instructions, then run the command`,
    );
  }
}

/** What a call collects when it names no output_files. */
export const defaultOutputs = 'out/** (the files this run writes)';

/** The files staging places for `skills`, as `skills/<skill>/<path>`; a skill that cannot be listed is named by its folder. */
export async function stagedFilesOf(
  skills: readonly string[],
  options: ResolvedExecutionOptions,
  context: ToolContext,
): Promise<ToolCallDescription['stagedFiles']> {
  const files: string[] = [];
  for (const skill of skills) {
    // The repository staging reads: the tools' own, else the workspace manager's.
    const repository = options.repository ?? options.workspaces.repository;
    const listed = await repository.listFiles(skill, context.skillContext).catch(() => undefined);
    if (listed === undefined) files.push(`skills/${skill}/`);
    else files.push(...listed.map((path) => `skills/${skill}/${path}`));
  }
  return files;
}

/**
 * Skills other than `staged` whose copies a command in this session's workspace can reach: those
 * loaded now (a later call stages them) and those staged by earlier calls (metadata.json).
 */
export async function skillsInWorkspace(
  options: ResolvedExecutionOptions,
  context: ToolContext,
  staged: readonly string[],
): Promise<string[]> {
  const workspace = await options.workspaces.workspace({
    ...(context.appName !== undefined ? { appName: context.appName } : {}),
    ...(context.userId !== undefined ? { userId: context.userId } : {}),
    sessionId: context.sessionId,
  });
  const present = new Set([
    ...runnableSkillNames(context.state, context.agentName),
    ...Object.keys((await workspace.metadata()).skills),
  ]);
  for (const name of staged) present.delete(name);
  return [...present].sort();
}
