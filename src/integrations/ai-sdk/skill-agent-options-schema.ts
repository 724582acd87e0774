import { z } from 'zod';
import { approvalOptionsSchema } from '../../approvals/approval-options-schema.js';
import {
  booleanOption,
  evenWithOtherProblems,
  functionOption,
  nonEmptyString,
  objectWithMethods,
  oneOf,
  positiveInteger,
  recordOption,
  removedOption,
} from '../../config/option-schemas.js';
import { omitInput } from '../../config/validate-options.js';
import { executionLimits } from '../../workspace/tools/execution-options.js';
import { executionSettingsSchema } from '../../workspace/workspace-options-schema.js';

// The options of the AI SDK integration's factories, shared in layers: `createSkillPrepareStep`
// options, plus the repository and execution of `createSkillToolkit`, plus the toolkit cache of
// `createVisibleSkillToolkits`, plus the model, sessions and history of `createSkillAgent`.
// Each is the only check its factory runs: the toolkits, skill tools, workspace manager and execution
// tools built from the options are not checked again, so a schema here covers what theirs would.

// What the toolkit's parts call on a repository (the catalog lists, the tools get).
const repositorySchema = objectWithMethods(['list', 'get'], 'must be a SkillRepository');

const prepareStepShape = {
  toolPool: recordOption('must be a record of AI SDK tools by name').optional(),
  materialize: oneOf(['system', 'tool-result']).optional(),
  loadMode: oneOf(['turn', 'once', 'session']).optional(),
  maxLoadedSkills: z
    .int({ error: 'must be a positive integer (0 or undefined for no limit)' })
    .min(0, { error: 'must be a positive integer (0 or undefined for no limit)' })
    .optional(),
  instructions: z.string({ error: 'must be a string' }).optional(),
  enforceAllowedTools: booleanOption().optional(),
  skillSearch: oneOf(['over-budget', 'always', 'never']).optional(),
};

/** `SkillPrepareStepOptions`; a pool tool named like a skill tool is refused when the step is built. */
export const skillPrepareStepOptionsSchema = z.looseObject(
  {
    ...prepareStepShape,
    repository: repositorySchema,
    skillToolNames: z.array(z.string(), { error: 'must be an array of tool names' }),
  },
  { error: 'must be an object' },
);

const toolkitShape = {
  ...prepareStepShape,
  repository: repositorySchema.optional(),
  skills: removedOption('repository'),
  includeModelDisabled: removedOption('includeNonModelInvocable'),
  profile: z
    .union([z.literal('knowledge'), z.literal('full'), z.array(z.string())], {
      error: 'must be "knowledge", "full" or an array of tool names',
    })
    .optional(),
  skillNames: z.array(z.string(), { error: 'must be an array of skill names' }).optional(),
  // What the workspace manager made from it needs (workspaceManagerOptionsSchema), checked here once.
  runtime: objectWithMethods(['run', 'guestPath', 'files'], 'must be a WorkspaceRuntime (createRuntime())').optional(),
  workspaces: objectWithMethods(['workspace'], 'must be a WorkspaceManager (createWorkspaceManager())').optional(),
  execution: executionSettingsSchema(executionLimits).optional(),
  unmetRequirements: oneOf(['mark', 'hide']).optional(),
  searchBodies: booleanOption().optional(),
  executionTools: z.array(z.looseObject({ name: z.string() }), { error: 'must be an array of tools' }).optional(),
  approval: approvalOptionsSchema.optional(),
};

interface ToolkitRuleInput {
  repository?: unknown;
  runtime?: unknown;
  workspaces?: unknown;
  execution?: unknown;
  executionTools?: unknown;
}

/** The rules between toolkit options: one repository, and execution tools either given or built. */
function toolkitRules(options: ToolkitRuleInput, context: z.core.$RefinementCtx): void {
  const issue = (option: string, message: string) =>
    context.addIssue({ code: 'custom', path: [option], message, params: omitInput });
  if (options.repository === undefined) issue('repository', 'is required: the SkillRepository skills come from');
  if (options.executionTools !== undefined && (options.runtime !== undefined || options.workspaces !== undefined))
    issue('executionTools', 'cannot be given with runtime or workspaces; give one or the other');
  if (
    options.execution !== undefined &&
    options.executionTools === undefined &&
    options.runtime === undefined &&
    options.workspaces === undefined
  )
    issue('execution', 'needs a runtime or workspaces to run anything');
}

/** `SkillToolkitOptions`. */
export const skillToolkitOptionsSchema = z
  .looseObject(toolkitShape, { error: 'must be an object' })
  .superRefine(toolkitRules, evenWithOtherProblems);

const visibleShape = { ...toolkitShape, maxCachedToolkits: positiveInteger().optional() };

/** `VisibleSkillToolkitsOptions`. */
export const visibleSkillToolkitsOptionsSchema = z
  .looseObject(visibleShape, { error: 'must be an object' })
  .superRefine(toolkitRules, evenWithOtherProblems);

/** Call settings the agent sets itself, so a caller's value would be ignored or conflict. */
const agentOwnedCallSettings = ['model', 'tools', 'messages', 'prompt', 'system', 'prepareStep', 'stopWhen'];

/** `SkillAgentOptions`. */
export const skillAgentOptionsSchema = z
  .looseObject(
    {
      ...visibleShape,
      model: z.custom((value) => value !== undefined && value !== null, {
        error: 'is required: a language model (a provider model or a model id string)',
      }),
      filter: functionOption('(summary, context) => boolean').optional(),
      sessions: objectWithMethods(['getSession', 'appendEvents'], 'must be a SessionStore').optional(),
      appName: z.string({ error: 'must be a string' }).optional(),
      name: nonEmptyString().optional(),
      maxSteps: positiveInteger().optional(),
      maxAppendAttempts: positiveInteger().optional(),
      maxHistoryMessages: positiveInteger().optional(),
      prepareHistory: functionOption('(messages) => messages').optional(),
      compaction: z
        .strictObject(
          { unusedTurns: positiveInteger().optional(), historyTokenBudget: positiveInteger().optional() },
          { error: 'must be { unusedTurns?, historyTokenBudget? }' },
        )
        .refine((value) => value.unusedTurns !== undefined || value.historyTokenBudget !== undefined, {
          error: 'must set unusedTurns, historyTokenBudget or both (leave compaction out to turn it off)',
        })
        .optional(),
      tools: recordOption('must be a record of AI SDK tools by name').optional(),
      callSettings: recordOption('must be an object of model call settings').optional(),
    },
    { error: 'must be an object' },
  )
  .superRefine((options, context) => {
    toolkitRules(options, context);
    const settings: unknown = options.callSettings;
    if (typeof settings !== 'object' || settings === null) return;
    if ('abortSignal' in settings) {
      context.addIssue({
        code: 'custom',
        path: ['callSettings', 'abortSignal'],
        message: 'belongs to each run: pass it to run({ abortSignal })',
        params: omitInput,
      });
    }
    for (const field of agentOwnedCallSettings) {
      if (field in settings) {
        context.addIssue({
          code: 'custom',
          path: ['callSettings', field],
          message: 'is set by the agent, not a call setting',
          params: omitInput,
        });
      }
    }
  }, evenWithOtherProblems);
