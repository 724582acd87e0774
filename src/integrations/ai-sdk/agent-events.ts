import type { StateDelta } from '../../state/state-delta.js';

/** Token counts of one model call or of a whole turn. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Input tokens the provider reports as read from its prompt cache (0 when it reports none). */
  cachedInputTokens: number;
}

/**
 * What `SkillAgent.run` streams, in order. Events are meant for clients (a terminal, a web UI):
 * a loaded skill appears as the short `loaded: <name>` stub of its tool result, never as its
 * materialised body, which exists only in the requests sent to the model; a `skill_read` result
 * appears as `read: <skill>[/<path>] (<N> chars)` (the stored transcript keeps the text the model read).
 */
export type SkillAgentEvent =
  | { type: 'text-delta'; stepNumber: number; text: string }
  | { type: 'tool-call'; stepNumber: number; toolCallId: string; toolName: string; input: unknown }
  /** `error` is set when the call failed; it is the text the model was shown. */
  | { type: 'tool-result'; stepNumber: number; toolCallId: string; toolName: string; output?: unknown; error?: string }
  /** A committed change of the session state: a tool call's writes, or the turn bookkeeping (reset, declared loads, eviction). */
  | {
      type: 'state-change';
      stepNumber: number;
      source: 'tool' | 'turn';
      toolCallId?: string;
      toolName?: string;
      delta: StateDelta;
    }
  | { type: 'step-finish'; stepNumber: number; finishReason: string; usage: TokenUsage; activeTools: string[] }
  /** The turn is stored: `sessionVersion` is the session's version after it. */
  | { type: 'done'; text: string; steps: number; usage: TokenUsage; sessionVersion: number };

/** The `type` of a `SkillAgentEvent`. */
export type SkillAgentEventType = SkillAgentEvent['type'];

/** A token usage of zero, the start of a sum with `addUsage`. */
export const emptyUsage: TokenUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, cachedInputTokens: 0 };

/** The sum of two token usages, field by field. */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
  };
}
