import { z } from 'zod';
import { maxDescribedFiles } from '../../approvals/approval-gate.js';
import { isSkillRunnable, runnableSkillNames } from '../../disclosure/skill-activation.js';
import { skillInstructionsDigest } from '../../disclosure/skill-instructions-digest.js';
import { isRetrySafeSkill } from '../../format/retry-safe.js';
import { readSkillImage } from '../../format/skill-image.js';
import type { Skill } from '../../repository/types.js';
import { SkillToolError } from '../../tools/errors.js';
import type { ToolCallDescription, ToolContext, ToolDefinition } from '../../tools/types.js';
import { artifactPrefixProblem, resolveOutputSpec } from '../outputs/output-spec.js';
import { maxEditorTextLength, placeEditorText } from './editor-text.js';
import { executeCommand } from './execute-command.js';
import type { ResolvedExecutionOptions } from './execution-options.js';
import { refuseUnmetRequirements, skillOfCall } from './requirement-gate.js';
import type { SkillRunResult } from './run-result.js';
import { runningBackgroundProcesses } from './running-background-processes.js';

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
    skill_digest: z
      .string()
      .optional()
      .describe("Only if this session has not loaded the skill: the skill_digest skill_load's result gave."),
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
    artifact_prefix: z.string().optional().describe('Label before saved artifact names, e.g. "q3-"; no "/" or "..".'),
    editor_text: z
      .string()
      .optional()
      .describe('Text $EDITOR/$VISUAL write to the file they open (e.g. for "git commit"); not with env.EDITOR.'),
    outputs: z
      .object({
        // Bounds are checked by resolveOutputSpec, naming the field: in the schema they would be
        // sent with every request.
        globs: z.array(z.string()),
        inline: z.boolean().optional(),
        save: z.boolean().optional(),
        name_template: z.string().optional(),
        max_files: z.number().optional(),
        max_file_bytes: z.number().optional(),
        max_total_bytes: z.number().optional(),
      })
      .optional()
      .describe(
        'Instead of output_files: globs; inline (return text, default false); save (as artifacts); name_template (their name prefix); max_* caps can only lower the configured ones.',
      ),
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
      await refuseUnloadedSkill(options, skill, input.skill_digest, context);
      return {
        command: input.command,
        skill,
        ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
        stagedSkills: [skill],
        skillsInWorkspace: await skillsInWorkspace(options, context, [skill]),
        ...(await stagedFilesOf([skill], options, context)),
        inputs: (input.inputs ?? []).map((entry) => ({
          from: entry.from,
          ...(entry.to !== undefined ? { to: entry.to } : {}),
        })),
        outputs: input.output_files ?? [defaultOutputs],
        ...(await runningBackgroundProcesses(options, context)),
      };
    },
    async execute(input, context) {
      const skill = input.skill.trim();
      await refuseUnloadedSkill(options, skill, input.skill_digest, context);
      const fields = checkRunFields(input, options);
      const definition = await skillOfCall(options, skill, context);
      await refuseUnmetRequirements(options, definition, context);
      const retrySafe = declaresRetrySafe(definition, context);
      // The image the skill names for its scripts (`metadata: { skillbox-image: IMAGE }`); the runtime
      // decides whether it may run there (the requirement gate has already refused one it does not allow).
      const image = definition === undefined ? undefined : readSkillImage(definition).image;
      return executeCommand(
        options,
        {
          tool: 'skill_run',
          command: input.command,
          ...(retrySafe ? { retrySafe } : {}),
          ...(image === undefined ? {} : { image }),
          skill,
          cwd: input.cwd,
          env: input.env,
          stdin: input.stdin,
          timeoutSeconds: input.timeout,
          outputFiles: fields.outputs?.patterns ?? input.output_files,
          inputs: input.inputs,
          saveAsArtifacts: fields.outputs?.save === true || input.save_as_artifacts === true,
          omitInlineContent:
            input.omit_inline_content === true || (fields.outputs !== undefined && !fields.outputs.inline),
          ...(fields.outputs !== undefined
            ? {
                outputLimits: fields.outputs.limits,
                ...(fields.outputs.save ? { saveField: 'outputs.save' as const } : {}),
              }
            : {}),
          ...(fields.artifactPrefix !== '' ? { artifactPrefix: fields.artifactPrefix } : {}),
          ...(fields.editorText !== undefined
            ? { toolEnvironment: (workspace) => placeEditorText(workspace, fields.editorText as string) }
            : {}),
          prepare: async (workspace) => {
            const staged = await workspace.stageSkill(definition ?? skill, context.skillContext, options.repository);
            // Staging notes matter once, when the copy is made, not on every later run.
            return [...fields.warnings, ...(staged.staged ? staged.warnings : [])];
          },
        },
        context,
      );
    },
  };
}

/**
 * Whether this run may be repeated after a lost worker (`metadata: { skillbox-retry: safe }`). Read
 * only when the run has an id (a durable turn set `runIdPrefix`): without one no ledger sees it.
 */
function declaresRetrySafe(definition: Skill | undefined, context: ToolContext): boolean {
  if (context.runIdPrefix === undefined || context.toolCallId === undefined) return false;
  return definition !== undefined && isRetrySafeSkill(definition);
}

/**
 * Checks `artifact_prefix`, `editor_text` and `outputs` before anything is staged or run (a bad
 * field found after the command ran would lose its result), naming the field in every refusal.
 */
function checkRunFields(input: SkillRunInput, options: ResolvedExecutionOptions) {
  const warnings: string[] = [];
  const refuse = (message: string): never => {
    throw new SkillToolError(`skill_run: ${message}`);
  };
  if (input.outputs !== undefined && input.output_files !== undefined)
    refuse('give output_files or outputs, not both (outputs is output_files with caps, inline and save settings)');
  const artifactPrefix = input.artifact_prefix ?? '';
  const prefixProblem = artifactPrefixProblem(artifactPrefix);
  if (prefixProblem !== undefined) refuse(`artifact_prefix "${artifactPrefix}" refused: ${prefixProblem}`);
  let outputs: ReturnType<typeof resolveOutputSpec>['resolved'];
  if (input.outputs !== undefined) {
    const { resolved, problems } = resolveOutputSpec(input.outputs, options.outputLimits);
    if (problems.length > 0) refuse(problems.join('; '));
    outputs = resolved;
    warnings.push(...(resolved?.warnings ?? []));
    if (outputs?.namePrefix !== '' && artifactPrefix !== '')
      refuse('give artifact_prefix or outputs.name_template, not both: both name the saved artifacts');
  }
  const saves = input.save_as_artifacts === true || outputs?.save === true;
  if (artifactPrefix !== '' && !saves)
    warnings.push('artifact_prefix has no effect: nothing is saved without save_as_artifacts or outputs.save');
  // Empty is "no text", as other runtimes treat it.
  const editorText = input.editor_text === '' ? undefined : input.editor_text;
  if (editorText !== undefined && editorText.length > maxEditorTextLength)
    refuse(`editor_text has ${editorText.length} characters; at most ${maxEditorTextLength} are taken`);
  if (editorText !== undefined) {
    for (const name of ['EDITOR', 'VISUAL'])
      if (input.env?.[name] !== undefined) refuse(`editor_text cannot be combined with env.${name}`);
    // With command lists the program that starts is judged; an editor it then starts is a second one.
    if (options.policy.restricted)
      refuse('editor_text is not available when command lists (allowedCommands/deniedCommands) are in force');
  }
  return { outputs, artifactPrefix: outputs?.namePrefix || artifactPrefix, editorText, warnings };
}

/**
 * The model must have read a skill's instructions before running it: the skill is loaded in this
 * session, or the call carries the digest of its current SKILL.md that skill_load handed out in an
 * earlier session (a client that opens a new MCP session per call keeps no loaded skills; the
 * digest is in the model's context only if skill_load's result is, and stops matching once the
 * SKILL.md changes). docs/mcp.md, "Clients with a session per call".
 */
async function refuseUnloadedSkill(
  options: ResolvedExecutionOptions,
  skill: string,
  digest: string | undefined,
  context: ToolContext,
): Promise<void> {
  if (!options.requireSkillLoaded || isSkillRunnable(context.state, context.agentName, skill)) return;
  const load = `call skill_load with {"skill": "${skill}"}, read its instructions, then run the command`;
  if (digest === undefined) throw new SkillToolError(`skill_run requires skill_load first for "${skill}": ${load}`);
  const repository = options.repository ?? options.workspaces.repository;
  const current = await skillInstructionsDigest(repository, skill, context.skillContext).catch(() => undefined);
  if (digest.trim() !== current)
    throw new SkillToolError(
      `skill_run: skill_digest does not match the current SKILL.md of "${skill}" (it changed since it was loaded, or the digest is not the one skill_load gave): ${load}`,
    );
}

/** What a call collects when it names no output_files. */
export const defaultOutputs = 'out/** (the files this run writes)';

/**
 * The files staging places for `skills`, as `skills/<skill>/<path>`, at most `maxDescribedFiles`
 * (the rest counted). A skill that cannot be listed is named by its folder: the request still goes
 * to a person, who sees the whole skill is placed; a failed listing never lets a call through.
 * The listing is the repository's, which names only files inside the skill (a link out of the
 * folder is not listed, as it is not staged).
 */
export async function stagedFilesOf(
  skills: readonly string[],
  options: ResolvedExecutionOptions,
  context: ToolContext,
): Promise<Pick<ToolCallDescription, 'stagedFiles' | 'stagedFilesLeftOut'>> {
  // The repository staging reads: the tools' own, else the workspace manager's.
  const repository = options.repository ?? options.workspaces.repository;
  const listings = await Promise.all(
    skills.map((skill) => repository.listFiles(skill, context.skillContext).catch(() => undefined)),
  );
  const files: string[] = [];
  let leftOut = 0;
  for (const [index, skill] of skills.entries()) {
    const listed = listings[index] ?? [''];
    const room = Math.max(0, maxDescribedFiles - files.length);
    files.push(...listed.slice(0, room).map((path) => `skills/${skill}/${path}`));
    leftOut += Math.max(0, listed.length - room);
  }
  return { stagedFiles: files, ...(leftOut > 0 ? { stagedFilesLeftOut: leftOut } : {}) };
}

/**
 * Skills other than `staged` whose copies a command in this session's workspace can reach: those
 * loaded now (a later call stages them) and those the host staged by earlier calls (its own
 * record, never the workspace's metadata.json, which a command can rewrite).
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
    ...(await workspace.stagedSkillNames()),
  ]);
  for (const name of staged) present.delete(name);
  return [...present].sort();
}
