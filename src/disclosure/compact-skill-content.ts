import { loadedMarker, loadedStub } from './loaded-content.js';
import { type ModelMessage, type ToolResultPart, toolCallInputs, toolResultText } from './model-messages.js';

/** How much of the recent transcript `compactSkillContent` leaves untouched. */
export interface CompactSkillContentOptions {
  /** How many messages at the end stay as they are (the recent history the model is working with). */
  keepRecentMessages?: number;
  /**
   * Which skill content to compact, by the skill, the result's tool call and the message it is in;
   * default all (outside the recent messages). A runner that compacts by its own policy (per skill,
   * by turns unused) picks here.
   */
  select?: (occurrence: CompactableOccurrence) => boolean;
  /**
   * Also replace the short `loaded: <skill>` results a `skill_load` stores (default false): for a
   * caller that unloads the skill too, so no old result claims it is still loaded.
   */
  compactLoadResults?: boolean;
}

/** One tool result carrying a skill's content (or the short result a `skill_load` returns). */
export interface CompactableOccurrence {
  skill: string;
  toolCallId: string;
  messageIndex: number;
}

function lineCount(text: string): number {
  return text === '' ? 0 : text.split('\n').length;
}

/** The one-line stand-in for a compacted skill body. */
export function compactedSkillStub(skill: string, path: string, text: string): string {
  return `[compacted] skill "${skill}" ${path}: ${text.length} characters, ${lineCount(text)} lines; call skill_load or skill_read with {"skill":"${skill}"} to see it again.`;
}

/**
 * The stand-in for a `skill_load` / `skill_select_docs` result that held only the tool's short
 * answer: in the request it carried the skill's content (materialised), which is now gone.
 */
export function compactedLoadStub(skill: string): string {
  return `[compacted] skill "${skill}" is no longer loaded; call skill_load with {"skill":"${skill}"} to load it again.`;
}

/**
 * What to compact in one result: a skill body shown by `skill_read` without a path, or loaded
 * content materialised into a `skill_load` / `skill_select_docs` result. Reads of other files are
 * ordinary file reads and are left to the caller's own compaction.
 */
function compactable(
  part: ToolResultPart,
  callInput: unknown,
  includeLoadResults: boolean,
): { skill: string; path: string; stub?: boolean } | undefined {
  const input =
    typeof callInput === 'object' && callInput !== null ? (callInput as Record<string, unknown>) : undefined;
  const skill = typeof input?.skill === 'string' ? input.skill : undefined;
  const text = toolResultText(part.output);
  if (part.output.type === 'error-text' || part.output.type === 'error-json') return undefined;
  if (part.toolName === 'skill_read') {
    if (skill === undefined || (typeof input?.path === 'string' && input.path !== '' && input.path !== 'SKILL.md'))
      return undefined;
    return { skill, path: 'SKILL.md' };
  }
  if (part.toolName === 'skill_load' || part.toolName === 'skill_select_docs') {
    // The call's input names the skill; the marker tells materialised content, the stub a stored result.
    if (skill === undefined) return undefined;
    if (text.includes(loadedMarker(skill))) return { skill, path: 'SKILL.md' };
    if (includeLoadResults && text.trim().toLowerCase() === loadedStub(skill).toLowerCase())
      return { skill, path: 'SKILL.md', stub: true };
    return undefined;
  }
  return undefined;
}

/**
 * Replaces skill bodies in old history with a one-line stub (name, path, size), as zapvol does,
 * so a long conversation stops paying for instructions it loaded long ago. The model can load
 * the skill again to re-expand it. Returns new messages; the input is not changed.
 */
export function compactSkillContent(
  messages: readonly ModelMessage[],
  options: CompactSkillContentOptions = {},
): ModelMessage[] {
  const keep = Math.max(0, options.keepRecentMessages ?? 0);
  const end = Math.max(0, messages.length - keep);
  const inputs = toolCallInputs(messages);
  return messages.map((message, index) => {
    if (index >= end || message.role !== 'tool') return message;
    let changed = false;
    const content = message.content.map((part) => {
      if (part.type !== 'tool-result') return part;
      const target = compactable(part, inputs.get(part.toolCallId), options.compactLoadResults === true);
      if (target === undefined) return part;
      if (
        options.select !== undefined &&
        !options.select({ skill: target.skill, toolCallId: part.toolCallId, messageIndex: index })
      )
        return part;
      changed = true;
      const stub =
        target.stub === true
          ? compactedLoadStub(target.skill)
          : compactedSkillStub(target.skill, target.path, toolResultText(part.output));
      return { ...part, output: { type: 'text' as const, value: stub } };
    });
    return changed ? { ...message, content } : message;
  });
}
