import { z } from 'zod';
import { loadedStub } from '../disclosure/loaded-content.js';
import { uniqueItems } from '../disclosure/selection.js';
import { loadSkill } from '../disclosure/skill-transitions.js';
import { writeDelta } from '../state/state-delta.js';
import { SkillToolError } from './errors.js';
import {
  acceptingSkillNameAlias,
  getVisibleSkill,
  parseToolInput,
  requireKnownItems,
  type SkillToolSettings,
} from './skill-tool-support.js';
import type { ToolDefinition } from './types.js';

export interface SkillLoadInput {
  skill: string;
  docs?: string[] | undefined;
  include_all_docs?: boolean | undefined;
}

export function createSkillLoadTool(settings: SkillToolSettings): ToolDefinition<SkillLoadInput, string> {
  const inputSchema = acceptingSkillNameAlias(
    z.object({
      skill: settings.skillSchema,
      docs: z
        .array(z.string())
        .optional()
        .describe('Docs of the skill to show as well (paths from skill_list_docs); prefer few'),
      include_all_docs: z.boolean().optional().describe('Show every doc of the skill (use sparingly)'),
    }),
  );
  return {
    name: 'skill_load',
    description:
      "Load a skill: its SKILL.md instructions (and any docs you name) appear in your context from the next step on. The catalog already lists names and descriptions, so do not call this to browse; call it when a task needs a skill's instructions.",
    inputSchema,
    async execute(input, context) {
      const args = parseToolInput('skill_load', inputSchema, input, '{"skill":"<name>","docs":["<doc path>"]}');
      const docs = uniqueItems(args.docs ?? []);
      if (docs.length > 0 && args.include_all_docs === true) {
        throw new SkillToolError(
          'skill_load takes docs or include_all_docs, not both: name the docs you need, or set include_all_docs alone.',
        );
      }
      const skill = await getVisibleSkill(settings, args.skill, context);
      requireKnownItems(
        skill.name,
        'doc',
        docs,
        skill.docs,
        'Call skill_load without docs, or pick docs from that list.',
      );
      const delta = loadSkill(context.state, {
        agentName: context.agentName,
        skill: skill.name,
        docs,
        includeAllDocs: args.include_all_docs === true,
        ...(settings.maxLoadedSkills === undefined ? {} : { maxLoadedSkills: settings.maxLoadedSkills }),
      });
      writeDelta(context.state, delta);
      return loadedStub(skill.name);
    },
  };
}
