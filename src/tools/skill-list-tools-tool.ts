import { z } from 'zod';
import {
  acceptingSkillNameAlias,
  getVisibleSkill,
  parseToolInput,
  type SkillToolSettings,
} from './skill-tool-support.js';
import type { ToolDefinition } from './types.js';

export interface SkillListToolsInput {
  skill: string;
}

export interface SkillListToolsOutput {
  skill: string;
  available_tools: string[];
}

export function createSkillListToolsTool(
  settings: SkillToolSettings,
): ToolDefinition<SkillListToolsInput, SkillListToolsOutput> {
  const inputSchema = acceptingSkillNameAlias(z.object({ skill: settings.skillSchema }));
  return {
    name: 'skill_list_tools',
    writesState: false,
    description:
      'List the tools a skill makes available (its SKILL.md `Tools:` section); loading the skill selects them all.',
    inputSchema,
    async execute(input, context) {
      const args = parseToolInput('skill_list_tools', inputSchema, input, '{"skill":"<name>"}');
      const skill = await getVisibleSkill(settings, args.skill, context);
      return { skill: skill.name, available_tools: [...skill.tools] };
    },
  };
}
