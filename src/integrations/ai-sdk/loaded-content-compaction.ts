import type { ModelMessage } from 'ai';
import { compactSkillContent } from '../../disclosure/compact-skill-content.js';
import type { ModelMessage as NeutralModelMessage } from '../../disclosure/model-messages.js';
import { countTokens } from '../../disclosure/token-counter.js';

/**
 * When `createSkillAgent` compacts loaded skill content in the history it replays (docs/ai-sdk.md,
 * "Compaction"). Either rule alone or both; neither given means no compaction.
 */
export interface SkillCompactionPolicy {
  /**
   * Compact a skill's content once this many whole turns went by without a tool call naming the
   * skill, and unload the skill. At least 1.
   */
  unusedTurns?: number;
  /**
   * When the replayed history (as stored, counted in o200k_base tokens) is larger than this, also
   * compact the content of every turn before the last one, and unload the skills the last turn did
   * not use.
   */
  historyTokenBudget?: number;
}

/** What to send instead of the stored history, and which loaded skills to unload for this turn. */
export interface CompactionPlan {
  messages: ModelMessage[];
  /** Loaded skills whose content was compacted: unloaded, so nothing materialises them again. */
  unload: string[];
  /** Tokens of the replayed history as stored (what `historyTokenBudget` is compared with). */
  historyTokens: number;
}

/**
 * Plans the compaction of one run. Every decision is read from the history alone and only ever
 * grows as the history grows: a result compacted in one turn is compacted the same way in every
 * later one, so the requests of later turns share the compacted prefix byte for byte. A result is
 * replaced in place by a fixed stub; nothing is moved or reordered.
 *
 * - `unusedTurns`: a skill's result in turn k is compacted once, at some point after k, that many
 *   whole turns in a row did not name the skill (so a skill used again later does not bring old
 *   copies back);
 * - `historyTokenBudget`: once the stored history is larger, results of every turn before the last
 *   whole one are compacted (the last one is what the model is likely still working with).
 *
 * `loaded` are the skills loaded now; `usedNow` those this run declares (they count as used in the
 * current turn).
 */
export function planCompaction(
  history: readonly ModelMessage[],
  policy: SkillCompactionPolicy,
  loaded: readonly string[],
  usedNow: readonly string[] = [],
): CompactionPlan {
  const turnOf = turnIndexes(history);
  // The turn this run adds: every stored turn is complete.
  const current = history.filter((message) => message.role === 'user').length;
  const uses = skillUses(history, turnOf);
  for (const skill of usedNow) addUse(uses, skill, current);
  const historyTokens = policy.historyTokenBudget === undefined ? 0 : countHistoryTokens(history);
  const overBudget = policy.historyTokenBudget !== undefined && historyTokens > policy.historyTokenBudget;
  const lastWholeTurn = current - 1;

  const compactedAt = (skill: string, turn: number): boolean => {
    if (overBudget && turn < lastWholeTurn) return true;
    const limit = policy.unusedTurns;
    if (limit === undefined) return false;
    // A gap of `limit` turns without a use, after this result, among the whole turns so far.
    const later = (uses.get(skill) ?? []).filter((used) => used > turn);
    let previous = turn;
    for (const used of [...later, current]) {
      if (used - previous - 1 >= limit) return true;
      previous = used;
    }
    return false;
  };

  const unload = loaded.filter((skill) => {
    const used = uses.get(skill) ?? [];
    // Last use in the replayed history; none means before it (windowed out, or a declared load).
    const last = used.length === 0 ? -1 : Math.max(...used);
    if (last === current) return false;
    if (overBudget && last < lastWholeTurn) return true;
    return policy.unusedTurns !== undefined && current - last - 1 >= policy.unusedTurns;
  });

  // A skill that stays loaded has its content materialised into its latest load result: that
  // result stays as it is, whatever the rules say of its turn.
  const kept = new Set(loaded.filter((skill) => !unload.includes(skill)));
  const anchors = latestLoadResults(history);
  const messages = compactSkillContent(history as unknown as NeutralModelMessage[], {
    compactLoadResults: true,
    select: ({ skill, toolCallId, messageIndex }) =>
      !(kept.has(skill) && anchors.get(skill) === toolCallId) && compactedAt(skill, turnOf[messageIndex] ?? 0),
  }) as unknown as ModelMessage[];
  return { messages, unload, historyTokens };
}

/** The tool call id of each skill's latest `skill_load` / `skill_select_docs` result. */
function latestLoadResults(history: readonly ModelMessage[]): Map<string, string> {
  const skillOfCall = new Map<string, string>();
  const latest = new Map<string, string>();
  for (const message of history) {
    if (message.role === 'assistant' && typeof message.content !== 'string') {
      for (const part of message.content) {
        const skill = part.type === 'tool-call' ? skillOf(part.input) : undefined;
        if (part.type === 'tool-call' && skill !== undefined) skillOfCall.set(part.toolCallId, skill);
      }
    }
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result' || (part.toolName !== 'skill_load' && part.toolName !== 'skill_select_docs'))
        continue;
      const skill = skillOfCall.get(part.toolCallId);
      if (skill !== undefined) latest.set(skill, part.toolCallId);
    }
  }
  return latest;
}

/** The turn of each message: a user message opens the next one (messages before any belong to turn 0). */
function turnIndexes(history: readonly ModelMessage[]): number[] {
  let turn = -1;
  return history.map((message) => {
    if (message.role === 'user') turn += 1;
    return Math.max(turn, 0);
  });
}

function addUse(uses: Map<string, number[]>, skill: string, turn: number): void {
  const list = uses.get(skill);
  if (list === undefined) uses.set(skill, [turn]);
  else if (!list.includes(turn)) list.push(turn);
}

/** The turns in which a tool call named each skill (`{"skill": ...}`), in order. */
function skillUses(history: readonly ModelMessage[], turnOf: readonly number[]): Map<string, number[]> {
  const uses = new Map<string, number[]>();
  history.forEach((message, index) => {
    if (message.role !== 'assistant' || typeof message.content === 'string') return;
    for (const part of message.content) {
      if (part.type !== 'tool-call') continue;
      const skill = skillOf(part.input);
      if (skill !== undefined) addUse(uses, skill, turnOf[index] ?? 0);
    }
  });
  return uses;
}

function skillOf(input: unknown): string | undefined {
  let value = input;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const skill = (value as Record<string, unknown>).skill;
  return typeof skill === 'string' && skill.trim() !== '' ? skill.trim() : undefined;
}

/** Tokens of the history as stored: each message's content, serialised as JSON. */
function countHistoryTokens(history: readonly ModelMessage[]): number {
  let total = 0;
  for (const message of history)
    total += countTokens(typeof message.content === 'string' ? message.content : JSON.stringify(message.content));
  return total;
}
