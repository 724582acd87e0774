import { z } from 'zod';
import { listModelVisibleNames, parseToolInput, type SkillToolSettings } from './skill-tool-support.js';
import type { ToolDefinition } from './types.js';

export type SkillListInput = Record<string, never>;

export function createSkillListTool(settings: SkillToolSettings): ToolDefinition<SkillListInput, string[]> {
  const inputSchema = z.object({}).strict() as unknown as z.ZodType<SkillListInput>;
  return {
    name: 'skill_list',
    writesState: false,
    description:
      'List the names of the skills available to you (the catalog in your instructions also has their descriptions).',
    inputSchema,
    async execute(input, context) {
      parseToolInput('skill_list', inputSchema, input, '{}');
      return listModelVisibleNames(settings, context);
    },
  };
}
