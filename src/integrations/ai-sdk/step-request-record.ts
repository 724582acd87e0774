import type { MaterializationMode } from '../../disclosure/materialize-request.js';
import type { TokenUsage } from './agent-events.js';
import type { PreparedStep } from './skill-call-context.js';

/**
 * What the first stored message of a step says about the model request that produced it, in its
 * event's `metadata.request`: which skills were loaded and where they were put, and how many tools
 * the model saw. Taken from what the step's preparation decided anyway, so it costs a step nothing;
 * the inspector shows it in the session timeline.
 */
export interface StepRequestRecord {
  /** The step's number in its turn, from 0. */
  step: number;
  /** The skills loaded into the request, least recently touched first. */
  loadedSkills: string[];
  /** Where they were put: the system message, or tool results in the conversation. */
  materialize: MaterializationMode;
  /** How many tools the model was offered (skill tools and the caller's own). */
  tools: number;
  /**
   * The request's input tokens and how many of them the provider read from its prompt cache, as
   * the provider reported them (absent when it reported none): the cached prefix's share.
   */
  inputTokens?: number;
  cachedInputTokens?: number;
}

/**
 * The request record of each step of a turn whose preparation ran, keyed by the index of the step's
 * first message among the turn's response messages (`stepStarts[k]`: where step k's start).
 */
export function stepRequestRecords(
  stepStarts: readonly number[],
  preparedSteps: readonly (PreparedStep | undefined)[],
  customTools: number,
  stepUsages: readonly (TokenUsage | undefined)[] = [],
): Map<number, StepRequestRecord> {
  const records = new Map<number, StepRequestRecord>();
  stepStarts.forEach((start, step) => {
    const prepared = preparedSteps[step];
    if (prepared === undefined || records.has(start)) return;
    records.set(start, {
      step,
      loadedSkills: prepared.loadedSkills,
      materialize: prepared.materialize,
      tools: prepared.activeTools.length + customTools,
      ...usageOfRequest(stepUsages[step]),
    });
  });
  return records;
}

function usageOfRequest(usage: TokenUsage | undefined): Pick<StepRequestRecord, 'inputTokens' | 'cachedInputTokens'> {
  if (usage === undefined || usage.inputTokens === 0) return {};
  return { inputTokens: usage.inputTokens, cachedInputTokens: usage.cachedInputTokens };
}
