import { z } from 'zod';
import { approvalOptionsSchema } from '../../approvals/approval-options-schema.js';
import { evenWithOtherProblems, objectWithMethods, oneOf, recordOption } from '../../config/option-schemas.js';
import { omitInput } from '../../config/validate-options.js';
import {
  disclosureOptionsShape,
  executionOptionRules,
  executionOptionsShape,
  skillRepositorySchema,
} from '../skill-integration-options-schema.js';

// The one check `createAgentSkills` runs: the workspace manager, skill tools and execution tools it
// builds from these options are not checked again, so this covers what their checks would.

const functionToolSchema = z.looseObject(
  {
    type: z.literal('function', { error: 'must be a function tool (tool() of @openai/agents)' }),
    name: z.string({ error: 'must have a name' }),
    isEnabled: z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', {
      error: 'must be a function tool (tool() of @openai/agents)',
    }),
  },
  { error: 'must be a function tool (tool() of @openai/agents)' },
);

/** `AgentSkillsOptions`. */
export const agentSkillsOptionsSchema = z
  .looseObject(
    {
      repository: skillRepositorySchema,
      ...disclosureOptionsShape,
      ...executionOptionsShape,
      profile: z
        .union([z.literal('knowledge'), z.literal('full'), z.array(z.string())], {
          error: 'must be "knowledge", "full" or an array of tool names',
        })
        .optional(),
      toolPool: z.array(functionToolSchema, { error: 'must be an array of function tools' }).optional(),
      allowedToolAliases: recordOption('must be a record of tool names by alias').optional(),
      unmetRequirements: oneOf(['mark', 'hide']).optional(),
      approval: approvalOptionsSchema.optional(),
      sessions: objectWithMethods(['getSession', 'appendEvents'], 'must be a SessionStore').optional(),
    },
    { error: 'must be an object' },
  )
  .superRefine((options, context) => {
    executionOptionRules(options, context);
    const seen = new Set<string>();
    (options.toolPool ?? []).forEach((entry, index) => {
      if (seen.has(entry.name))
        context.addIssue({
          code: 'custom',
          path: ['toolPool', index],
          message: `holds a second tool named "${entry.name}"`,
          params: omitInput,
        });
      seen.add(entry.name);
    });
  }, evenWithOtherProblems);
