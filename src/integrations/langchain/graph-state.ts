import { ReducedValue, StateSchema } from '@langchain/langgraph';
import { z } from 'zod';
import { applyDelta, type StateDelta, type StateReader } from '../../state/state-delta.js';

/**
 * skillbox's disclosure state as one field of the LangGraph state, so whatever checkpointer the
 * graph has (MemorySaver, a database saver) persists the loaded skills, selections and load order
 * with the conversation. The keys and values are the `temp:skill:...` strings every other
 * integration writes (state/state-keys.ts).
 *
 * Every write replaces the whole map and carries a version one above the map it was made from;
 * the reducer keeps the higher version. Tool calls of one step run as parallel graph tasks and
 * their updates are folded in task order, not in the order they finished: a delta applied last
 * could undo a key (the load order) that a later call had already extended. The middleware runs
 * the calls of a step one at a time over the previous call's result, so the highest version holds
 * every call's writes, whatever order the graph folds them in.
 */
export interface SkillboxGraphState {
  /** One more than the state this one was made from; 0 for a thread that never wrote. */
  version: number;
  /** The invocation that wrote last: the calls of one step share it (see `stepOverlayKey`). */
  invocation: string;
  values: Record<string, string>;
}

/** The field of the graph state the middleware owns. */
export const skillboxStateField = 'skillbox';

/** The state of a thread that never wrote: nothing loaded. */
export const emptySkillboxState: SkillboxGraphState = { version: 0, invocation: '', values: {} };

const stateValueSchema = z.object({
  version: z.number().int().min(0),
  invocation: z.string(),
  values: z.record(z.string(), z.string()),
});

/** The newer of two states: an update made from an older state than the one held loses. */
export function newerSkillboxState(current: SkillboxGraphState, next: SkillboxGraphState): SkillboxGraphState {
  return next.version >= current.version ? next : current;
}

/** The middleware's `stateSchema`: the one `skillbox` field with its reducer. */
export function createSkillboxStateSchema() {
  return new StateSchema({
    [skillboxStateField]: new ReducedValue(stateValueSchema.default(emptySkillboxState), {
      reducer: newerSkillboxState,
    }),
  });
}

/** The field as the graph state holds it; a state without it (a fresh thread) is empty. */
export function skillboxStateOf(state: Record<string, unknown>): SkillboxGraphState {
  const value = state[skillboxStateField] as SkillboxGraphState | undefined;
  return value ?? emptySkillboxState;
}

/** A read-only view of the values, for the disclosure functions that take a snapshot. */
export function readerOf(state: SkillboxGraphState): StateReader {
  const map = new Map(Object.entries(state.values));
  return {
    get: (key) => map.get(key),
    keys: () => [...map.keys()],
  };
}

/** The state after `delta`, one version up; the same state when the delta changes nothing. */
export function withDelta(state: SkillboxGraphState, delta: StateDelta, invocation: string): SkillboxGraphState {
  const values = applyDelta(new Map(Object.entries(state.values)), delta);
  const unchanged =
    values.size === Object.keys(state.values).length &&
    [...values].every(([key, value]) => state.values[key] === value);
  if (unchanged && invocation === state.invocation) return state;
  return { version: state.version + 1, invocation, values: Object.fromEntries(values) };
}
