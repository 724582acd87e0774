import { PendingStateWrites } from './pending-state-writes.js';
import type { StateDelta } from './state-delta.js';
import type { StateView } from './state-view.js';

/** A view that records writes over a state; `commit()` returns them as one delta. */
export interface StateTransaction {
  /** What the tool reads and writes: the parent's state with this call's writes on top. */
  view: StateView;
  /** Writes the pending delta into the parent and returns it; only a call that succeeded commits. */
  commit(): StateDelta;
}

/**
 * Isolates one tool call's state writes so a call that throws leaves the session's state exactly
 * as it was (the tool contract promises that a failed call changes nothing). A transaction commits
 * once: a second commit is a caller's mistake, not an empty change.
 */
export function beginStateTransaction(parent: StateView): StateTransaction {
  const writes = new PendingStateWrites(parent);
  let committed = false;
  return {
    view: writes,
    commit() {
      if (committed) throw new Error('state transaction committed twice');
      committed = true;
      return writes.commit();
    },
  };
}
