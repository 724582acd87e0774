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
import {
  disclosureOptionsShape,
  type ExecutionOptionsInput,
  executionOptionRules,
  executionOptionsShape,
  skillRepositorySchema,
} from '../skill-integration-options-schema.js';

// The options of the AI SDK integration's factories, shared in layers: `createSkillPrepareStep`
// options, plus the repository and execution of `createSkillToolkit`, plus the toolkit cache of
// `createVisibleSkillToolkits`, plus the model, sessions and history of `createSkillAgent`.
// Each is the only check its factory runs: the toolkits, skill tools, workspace manager and execution
// tools built from the options are not checked again, so a schema here covers what theirs would.

const prepareStepShape = {
  ...disclosureOptionsShape,
  toolPool: recordOption('must be a record of AI SDK tools by name').optional(),
  instructions: z.string({ error: 'must be a string' }).optional(),
  skillSearch: oneOf(['over-budget', 'always', 'never']).optional(),
};

/** `SkillPrepareStepOptions`; a pool tool named like a skill tool is refused when the step is built. */
export const skillPrepareStepOptionsSchema = z.looseObject(
  {
    ...prepareStepShape,
    repository: skillRepositorySchema,
    skillToolNames: z.array(z.string(), { error: 'must be an array of tool names' }),
  },
  { error: 'must be an object' },
);

const toolkitShape = {
  ...prepareStepShape,
  ...executionOptionsShape,
  // Optional here and required by toolkitRules, which reports it beside the other problems.
  repository: skillRepositorySchema.optional(),
  skills: removedOption('repository'),
  includeModelDisabled: removedOption('includeNonModelInvocable'),
  profile: z
    .union([z.literal('knowledge'), z.literal('full'), z.array(z.string())], {
      error: 'must be "knowledge", "full" or an array of tool names',
    })
    .optional(),
  skillNames: z.array(z.string(), { error: 'must be an array of skill names' }).optional(),
  unmetRequirements: oneOf(['mark', 'hide']).optional(),
  searchBodies: booleanOption().optional(),
  approval: approvalOptionsSchema.optional(),
};

/** The rules between toolkit options: one repository, and execution tools either given or built. */
function toolkitRules(options: ExecutionOptionsInput & { repository?: unknown }, context: z.core.$RefinementCtx): void {
  if (options.repository === undefined)
    context.addIssue({
      code: 'custom',
      path: ['repository'],
      message: 'is required: the SkillRepository skills come from',
      params: omitInput,
    });
  executionOptionRules(options, context);
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
