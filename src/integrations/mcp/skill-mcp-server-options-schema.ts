import { z } from 'zod';
import { approvalOptionsSchema } from '../../approvals/approval-options-schema.js';
import {
  functionOption,
  nonEmptyString,
  objectWithMethods,
  oneOf,
  optionsObject,
  positiveInteger,
} from '../../config/option-schemas.js';
import type { SkillRepository } from '../../repository/types.js';
import { sharedSkillToolsOptionsSchema } from '../../tools/skill-tools-options-schema.js';

const mcpOwnOptionsSchema = optionsObject({
  repository: objectWithMethods<SkillRepository>(['list', 'get'], 'must be a SkillRepository'),
  sessionId: nonEmptyString().optional(),
  agentName: nonEmptyString().optional(),
  skillContext: z.looseObject({}, { error: 'must be an object { userId?, tenantId?, roles? }' }).optional(),
  catalogBudget: z
    .looseObject(
      { tokens: positiveInteger().optional(), characters: positiveInteger().optional() },
      { error: 'must be an object { tokens?, characters? }' },
    )
    .optional(),
  serverInfo: z
    .looseObject(
      { name: nonEmptyString(), version: nonEmptyString() },
      { error: 'must be an object { name, version }' },
    )
    .optional(),
  log: functionOption('(line) => void').optional(),
  skillSearch: oneOf(['over-budget', 'always', 'never']).optional(),
  skillsPageSize: positiveInteger().optional(),
  approval: approvalOptionsSchema.optional(),
});

/** `SkillMcpServerOptions`: the server's own options and the tool options it passes to createSkillTools. */
export const skillMcpServerOptionsSchema = z.intersection(mcpOwnOptionsSchema, sharedSkillToolsOptionsSchema);
