import { z } from 'zod';
import { approvalOptionsSchema } from '../../approvals/approval-options-schema.js';
import {
  booleanOption,
  evenWithOtherProblems,
  objectWithMethods,
  oneOf,
  recordOption,
} from '../../config/option-schemas.js';
import { omitInput } from '../../config/validate-options.js';
import { executionLimits } from '../../workspace/tools/execution-options.js';
import { executionSettingsSchema } from '../../workspace/workspace-options-schema.js';

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
      repository: objectWithMethods(['list', 'get'], 'must be a SkillRepository'),
      profile: z
        .union([z.literal('knowledge'), z.literal('full'), z.array(z.string())], {
          error: 'must be "knowledge", "full" or an array of tool names',
        })
        .optional(),
      toolPool: z.array(functionToolSchema, { error: 'must be an array of function tools' }).optional(),
      materialize: oneOf(['system', 'tool-result']).optional(),
      loadMode: oneOf(['turn', 'once', 'session']).optional(),
      maxLoadedSkills: z
        .int({ error: 'must be a positive integer (0 or undefined for no limit)' })
        .min(0, { error: 'must be a positive integer (0 or undefined for no limit)' })
        .optional(),
      enforceAllowedTools: booleanOption().optional(),
      allowedToolAliases: recordOption('must be a record of tool names by alias').optional(),
      runtime: objectWithMethods(
        ['run', 'guestPath', 'files'],
        'must be a WorkspaceRuntime (createRuntime())',
      ).optional(),
      workspaces: objectWithMethods(['workspace'], 'must be a WorkspaceManager (createWorkspaceManager())').optional(),
      execution: executionSettingsSchema(executionLimits).optional(),
      executionTools: z.array(z.looseObject({ name: z.string() }), { error: 'must be an array of tools' }).optional(),
      unmetRequirements: oneOf(['mark', 'hide']).optional(),
      approval: approvalOptionsSchema.optional(),
      sessions: objectWithMethods(['getSession', 'appendEvents'], 'must be a SessionStore').optional(),
    },
    { error: 'must be an object' },
  )
  .superRefine((options, context) => {
    const issue = (path: (string | number)[], message: string) =>
      context.addIssue({ code: 'custom', path, message, params: omitInput });
    if (options.executionTools !== undefined && (options.runtime !== undefined || options.workspaces !== undefined))
      issue(['executionTools'], 'cannot be given with runtime or workspaces; give one or the other');
    if (
      options.execution !== undefined &&
      options.executionTools === undefined &&
      options.runtime === undefined &&
      options.workspaces === undefined
    )
      issue(['execution'], 'needs a runtime or workspaces to run anything');
    const seen = new Set<string>();
    (options.toolPool ?? []).forEach((entry, index) => {
      if (seen.has(entry.name)) issue(['toolPool', index], `holds a second tool named "${entry.name}"`);
      seen.add(entry.name);
    });
  }, evenWithOtherProblems);
