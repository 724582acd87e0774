import { runSelection, type SelectionKind, selectionInputSchema } from './skill-selection.js';
import type { SkillToolSettings } from './skill-tool-support.js';
import type { ToolDefinition } from './types.js';

export interface SkillSelectToolsInput {
  skill: string;
  tools?: string[] | undefined;
  include_all_tools?: boolean | undefined;
  mode?: 'add' | 'replace' | 'clear' | undefined;
}

export interface SkillSelectToolsOutput {
  skill: string;
  mode: 'add' | 'replace' | 'clear';
  selected_tools: string[];
  include_all_tools: boolean;
}

const kind: SelectionKind = {
  toolName: 'skill_select_tools',
  item: 'tool',
  field: 'tools',
  available: (skill) => skill.tools,
  listTool: 'skill_list_tools',
};

export function createSkillSelectToolsTool(
  settings: SkillToolSettings,
): ToolDefinition<SkillSelectToolsInput, SkillSelectToolsOutput> {
  return {
    name: 'skill_select_tools',
    description:
      'Keep only the tools of a loaded skill that the task needs (loading selects them all): mode add appends, replace (the default) sets the whole selection, clear removes all.',
    inputSchema: selectionInputSchema(settings, kind) as never,
    async execute(input, context) {
      const outcome = await runSelection(settings, kind, input, context);
      return {
        skill: outcome.skill,
        mode: outcome.mode,
        selected_tools: outcome.selected,
        include_all_tools: outcome.includeAll,
      };
    },
  };
}
