/**
 * State is a flat map of string keys to string values (a session's state, docs/sessions.md). Every
 * disclosure transition reads a snapshot and returns a delta instead of writing, so a caller can
 * apply the deltas of a whole step at once, or drop them when the step fails. Session stores apply
 * the same deltas in the same atomic step as an append.
 */

import { PendingStateWrites } from './pending-state-writes.js';

/** Read access to a state snapshot: a `Map<string, string>` and a `StateView` both fit. */
export interface StateReader {
  get(key: string): string | undefined;
  keys(): Iterable<string>;
}

/** Keys to write; `null` deletes the key. */
export type StateDelta = Record<string, string | null>;

/** Later deltas win key by key. */
export function mergeDeltas(...deltas: readonly StateDelta[]): StateDelta {
  return Object.assign({}, ...deltas) as StateDelta;
}

/** A read-only view of `state` as it would be after `delta`, without changing `state`. */
export function overlayState(state: StateReader, delta: StateDelta): StateReader {
  return new PendingStateWrites(state, delta);
}

/** A new Map holding `state` with `delta` applied; the input is not changed. */
export function applyDelta(state: StateReader, delta: StateDelta): Map<string, string> {
  return new PendingStateWrites(state, delta).snapshot();
}

/** Writes a delta through anything with a `set(key, value | null)` (a StateView). */
export function writeDelta(target: { set(key: string, value: string | null): void }, delta: StateDelta): void {
  for (const [key, value] of Object.entries(delta)) target.set(key, value);
}
