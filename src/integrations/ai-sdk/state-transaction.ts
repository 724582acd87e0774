import type { StateDelta } from '../../disclosure/state-delta.js';
import type { StateView } from '../../tools/types.js';

export interface StateTransaction {
  /** What the tool reads and writes: the parent's state with this call's writes on top. */
  view: StateView;
  /** Writes the pending delta into the parent and returns it; only a call that succeeded commits. */
  commit(): StateDelta;
}

/**
 * Isolates one tool call's state writes so a call that throws leaves the session's state exactly
 * as it was (the tool contract promises that a failed call changes nothing).
 */
export function beginStateTransaction(parent: StateView): StateTransaction {
  const pending = new Map<string, string | null>();
  const view: StateView = {
    get(key) {
      if (pending.has(key)) return pending.get(key) ?? undefined;
      return parent.get(key);
    },
    set(key, value) {
      pending.set(key, value);
    },
    keys() {
      const present = parent.keys().filter((key) => !pending.has(key) || pending.get(key) !== null);
      for (const [key, value] of pending) if (value !== null && !present.includes(key)) present.push(key);
      return present;
    },
  };
  let committed = false;
  return {
    view,
    commit() {
      if (committed) throw new Error('state transaction committed twice');
      committed = true;
      const delta: StateDelta = {};
      for (const [key, value] of pending) {
        // Writing back what is already there is no change; leaving it out keeps events and stored deltas honest.
        if ((parent.get(key) ?? null) === value) continue;
        parent.set(key, value);
        delta[key] = value;
      }
      return delta;
    },
  };
}
