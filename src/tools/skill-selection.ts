import { z } from 'zod';
import { resolveSelection, type SelectionMode, selectionModes, uniqueItems } from '../disclosure/selection.js';
import { selectDocs, selectTools } from '../disclosure/skill-transitions.js';
import type { Skill } from '../repository/types.js';
import { writeDelta } from '../state/state-delta.js';
import { loadedKey, selectAll } from '../state/state-keys.js';
import { SkillToolError } from './errors.js';
import {
  acceptingSkillNameAlias,
  getVisibleSkill,
  parseToolInput,
  requireKnownItems,
  type SkillToolSettings,
} from './skill-tool-support.js';
import type { DisclosureToolName } from './tool-names.js';
import type { ToolContext } from './types.js';

/** What skill_select_docs and skill_select_tools share; only the item kind differs. */
export interface SelectionKind {
  toolName: Extract<DisclosureToolName, 'skill_select_docs' | 'skill_select_tools'>;
  /** `doc` or `tool`, as the messages say it. */
  item: 'doc' | 'tool';
  /** Input field of the items: `docs` or `tools`. */
  field: 'docs' | 'tools';
  available(skill: Skill): string[];
  listTool: Extract<DisclosureToolName, 'skill_list_docs' | 'skill_list_tools'>;
}

export function selectionInputSchema(settings: SkillToolSettings, kind: SelectionKind) {
  return acceptingSkillNameAlias(
    z.object({
      skill: settings.skillSchema,
      [kind.field]: z
        .array(z.string())
        .optional()
        .describe(`${kind.item === 'doc' ? 'Doc paths' : 'Tool names'} to select`),
      [`include_all_${kind.field}`]: z.boolean().optional().describe(`Select every ${kind.item} of the skill`),
      mode: z
        .enum(selectionModes as [SelectionMode, ...SelectionMode[]])
        .optional()
        .describe(
          `add: keep the current selection and append; replace (default): set the whole selection; clear: select no ${kind.item}s`,
        ),
    }),
  );
}

export interface SelectionOutcome {
  skill: string;
  mode: SelectionMode;
  selected: string[];
  includeAll: boolean;
}

export async function runSelection(
  settings: SkillToolSettings,
  kind: SelectionKind,
  input: unknown,
  context: ToolContext,
): Promise<SelectionOutcome> {
  const schema = selectionInputSchema(settings, kind);
  const example = `{"skill":"<name>","${kind.field}":["<${kind.item}>"],"mode":"add"}`;
  const args = parseToolInput(kind.toolName, schema, input, example) as Record<string, unknown> & {
    skill: string;
    mode?: SelectionMode;
  };
  const mode = args.mode ?? 'replace';
  const items = uniqueItems((args[kind.field] as string[] | undefined) ?? []);
  const allField = `include_all_${kind.field}`;
  const includeAll = args[allField] === true;
  if (items.length > 0 && includeAll)
    throw new SkillToolError(`${kind.toolName} takes ${kind.field} or ${allField}, not both.`);
  if (mode === 'clear' && (items.length > 0 || includeAll)) {
    throw new SkillToolError(
      `mode "clear" empties the selection and takes no ${kind.field}; use mode "replace" to set a new selection.`,
    );
  }
  if (mode !== 'clear' && items.length === 0 && !includeAll) {
    throw new SkillToolError(
      `mode "${mode}" needs ${kind.field} or ${allField}; to select no ${kind.item}s use mode "clear".`,
    );
  }
  const skill = await getVisibleSkill(settings, args.skill, context);
  if (!context.state.get(loadedKey(context.agentName, skill.name))) {
    throw new SkillToolError(`skill "${skill.name}" is not loaded; call skill_load {"skill":"${skill.name}"} first.`);
  }
  const available = kind.available(skill);
  requireKnownItems(skill.name, kind.item, items, available, `Call ${kind.listTool} to see them.`);
  const transition = kind.item === 'doc' ? selectDocs : selectTools;
  const result = transition(context.state, {
    agentName: context.agentName,
    skill: skill.name,
    mode,
    items,
    includeAll,
  });
  writeDelta(context.state, result.delta);
  return {
    skill: skill.name,
    mode,
    selected: resolveSelection(result.selection, available),
    includeAll: result.selection === selectAll,
  };
}
