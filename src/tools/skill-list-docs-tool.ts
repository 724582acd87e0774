import { z } from 'zod';
import {
  acceptingSkillNameAlias,
  getVisibleSkill,
  parseToolInput,
  type SkillToolSettings,
} from './skill-tool-support.js';
import type { ToolDefinition } from './types.js';

export interface SkillListDocsInput {
  skill: string;
}

export function createSkillListDocsTool(settings: SkillToolSettings): ToolDefinition<SkillListDocsInput, string[]> {
  const inputSchema = acceptingSkillNameAlias(z.object({ skill: settings.skillSchema }));
  return {
    name: 'skill_list_docs',
    writesState: false,
    description:
      "List a skill's docs (paths relative to the skill folder) that skill_load or skill_select_docs can add.",
    inputSchema,
    async execute(input, context) {
      const args = parseToolInput('skill_list_docs', inputSchema, input, '{"skill":"<name>"}');
      return [...(await getVisibleSkill(settings, args.skill, context)).docs];
    },
  };
}
