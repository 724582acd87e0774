import { z } from 'zod';
import { booleanOption, objectWithMethods, oneOf } from '../config/option-schemas.js';
import { omitInput } from '../config/validate-options.js';
import { executionLimits } from '../workspace/tools/execution-options.js';
import { executionSettingsSchema } from '../workspace/workspace-options-schema.js';

// The options every agent integration takes alike (createSkillAgent and its toolkits,
// createSkillMiddleware, createAgentSkills), spelt and worded once and composed into each
// factory's schema. The factory names itself when it checks (validateOptions(component, ...)), so
// a bad field here is reported as that factory's field.

/** What the catalog and the skill tools call on a repository. */
export const skillRepositorySchema = objectWithMethods(['list', 'get'], 'must be a SkillRepository');

/** How loaded skills reach the model's request and how long they stay loaded. */
export const disclosureOptionsShape = {
  materialize: oneOf(['system', 'tool-result']).optional(),
  loadMode: oneOf(['turn', 'once', 'session']).optional(),
  maxLoadedSkills: z
    .int({ error: 'must be a positive integer (0 or undefined for no limit)' })
    .min(0, { error: 'must be a positive integer (0 or undefined for no limit)' })
    .optional(),
  enforceAllowedTools: booleanOption().optional(),
};

/**
 * Where skill scripts run: a runtime or a workspace manager the execution tools are made from, or
 * the execution tools themselves. What the workspace manager made from `runtime` needs is checked
 * here, once (`workspaceManagerOptionsSchema` does not run again).
 */
export const executionOptionsShape = {
  runtime: objectWithMethods(['run', 'guestPath', 'files'], 'must be a WorkspaceRuntime (createRuntime())').optional(),
  workspaces: objectWithMethods(['workspace'], 'must be a WorkspaceManager (createWorkspaceManager())').optional(),
  execution: executionSettingsSchema(executionLimits).optional(),
  executionTools: z.array(z.looseObject({ name: z.string() }), { error: 'must be an array of tools' }).optional(),
};

/** The execution options as `executionOptionRules` reads them. */
export interface ExecutionOptionsInput {
  runtime?: unknown;
  workspaces?: unknown;
  execution?: unknown;
  executionTools?: unknown;
}

/** The rules between the execution options: the tools either given or made, and settings only with something to run them. */
export function executionOptionRules(options: ExecutionOptionsInput, context: z.core.$RefinementCtx): void {
  const issue = (option: string, message: string) =>
    context.addIssue({ code: 'custom', path: [option], message, params: omitInput });
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
