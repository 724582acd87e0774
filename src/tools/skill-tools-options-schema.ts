import { z } from 'zod';
import type { ConfigProblem } from '../config/config-error.js';
import { evenWithOtherProblems, objectWithMethods, optionsObject, removedOption } from '../config/option-schemas.js';
import { omitInput } from '../config/validate-options.js';
import type { SkillRepository } from '../repository/types.js';
import { disclosureToolNames } from './tool-names.js';

const readPageError = 'must be an integer of at least 1000';

// The options createSkillTools shares with the integrations that wrap it; `skillSearch` is not
// among them, because the integrations give it another meaning (when to offer the tool).
const sharedFields = {
  repository: objectWithMethods<SkillRepository>(['get'], 'must be a SkillRepository'),
  profile: z
    .union([z.literal('knowledge'), z.literal('full'), z.array(z.string())], {
      error: 'must be "knowledge", "full" or an array of tool names',
    })
    .optional(),
  executionTools: z
    .array(z.looseObject({ name: z.string() }), { error: 'must be an array of tool definitions' })
    .optional(),
  skillNames: z.array(z.string(), { error: 'must be an array of skill names' }).optional(),
  toolPool: z.array(z.string(), { error: 'must be an array of tool names' }).optional(),
  maxLoadedSkills: z
    .int({ error: 'must be a positive integer (0 or undefined for no limit)' })
    .min(0, { error: 'must be a positive integer (0 or undefined for no limit)' })
    .optional(),
  readPageBytes: z.int({ error: readPageError }).min(1000, { error: readPageError }).optional(),
  includeNonModelInvocable: z.boolean({ error: 'must be true or false' }).optional(),
  includeModelDisabled: removedOption('includeNonModelInvocable'),
  searchBodies: z.boolean({ error: 'must be true or false' }).optional(),
};

/**
 * The rules that tie `profile` to `executionTools`: one rule set for `createSkillTools`'s schema
 * and for an integration that derived the execution tools after its own schema ran.
 */
export function skillToolRuleProblems(options: { profile?: unknown; executionTools?: unknown }): ConfigProblem[] {
  // Options of the wrong type are reported by their own schemas; these rules read what they can.
  const problems: ConfigProblem[] = [];
  const executionTools: unknown[] = Array.isArray(options.executionTools) ? options.executionTools : [];
  const executionNames = executionTools.map((tool) => (tool as { name?: unknown } | null)?.name);
  const clash = executionNames.find((name) => (disclosureToolNames as readonly string[]).includes(name as string));
  if (clash !== undefined)
    problems.push({ option: 'executionTools', problem: `holds "${clash}", the name of a disclosure tool` });
  const profile: unknown = options.profile ?? 'knowledge';
  if (profile === 'full' && executionNames.length === 0) {
    problems.push({
      option: 'profile',
      problem:
        '"full" needs executionTools (skill_run and workspace_exec from the workspace layer); pass them, or use profile "knowledge"',
    });
  }
  if (Array.isArray(profile)) {
    const known = new Set<unknown>([...disclosureToolNames, ...executionNames]);
    const unknown = profile.filter((name) => !known.has(name));
    if (unknown.length > 0) {
      problems.push({
        option: 'profile',
        problem: `names unknown tools: ${unknown.join(', ')}. Known: ${[...known].join(', ')} (execution tools must be passed in executionTools)`,
      });
    }
  }
  return problems;
}

function checkToolRules(options: z.infer<z.ZodObject<typeof sharedFields>>, context: z.RefinementCtx): void {
  for (const { option, problem } of skillToolRuleProblems(options))
    context.addIssue({ code: 'custom', path: [option], message: problem, params: omitInput });
}

/** The options of createSkillTools an integration passes through, with their rules (`profile` against `executionTools`). */
export const sharedSkillToolsOptionsSchema = optionsObject(sharedFields).superRefine(
  checkToolRules,
  evenWithOtherProblems,
);

/** `SkillToolsOptions`, with the rules that tie `profile` to `executionTools`. */
export const skillToolsOptionsSchema = optionsObject({
  ...sharedFields,
  skillSearch: z.boolean({ error: 'must be true or false' }).optional(),
}).superRefine(checkToolRules, evenWithOtherProblems);
