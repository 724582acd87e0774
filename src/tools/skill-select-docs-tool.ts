import { runSelection, type SelectionKind, selectionInputSchema } from './skill-selection.js';
import type { SkillToolSettings } from './skill-tool-support.js';
import type { ToolDefinition } from './types.js';

export interface SkillSelectDocsInput {
  skill: string;
  docs?: string[] | undefined;
  include_all_docs?: boolean | undefined;
  mode?: 'add' | 'replace' | 'clear' | undefined;
}

export interface SkillSelectDocsOutput {
  skill: string;
  mode: 'add' | 'replace' | 'clear';
  selected_docs: string[];
  include_all_docs: boolean;
}

const kind: SelectionKind = {
  toolName: 'skill_select_docs',
  item: 'doc',
  field: 'docs',
  available: (skill) => skill.docs,
  listTool: 'skill_list_docs',
};

export function createSkillSelectDocsTool(
  settings: SkillToolSettings,
): ToolDefinition<SkillSelectDocsInput, SkillSelectDocsOutput> {
  return {
    name: 'skill_select_docs',
    description:
      'Change which docs of a loaded skill are in your context. Pick every doc you already know you need in one call: mode add appends to the current selection, replace (the default) sets the whole selection, clear removes all.',
    inputSchema: selectionInputSchema(settings, kind) as never,
    async execute(input, context) {
      const outcome = await runSelection(settings, kind, input, context);
      return {
        skill: outcome.skill,
        mode: outcome.mode,
        selected_docs: outcome.selected,
        include_all_docs: outcome.includeAll,
      };
    },
  };
}
