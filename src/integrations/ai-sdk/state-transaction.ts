import type { StateDelta } from '../../disclosure/state-delta.js';
import type { StateView } from '../../tools/types.js';

/** A view that records writes over a state snapshot; `commit()` returns them as one delta. */
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

/**
 * Tail of the queue of calls per state object and (session, agent). A WeakMap so a session's
 * state that is no longer referenced takes its queue with it.
 */
const queues = new WeakMap<StateView, Map<string, Promise<unknown>>>();

/**
 * Runs `work` once every earlier call queued for the same state, session and agent has finished
 * (successfully or not). The AI SDK runs a step's tool calls concurrently; a disclosure tool
 * computes keys such as the loaded order from what it reads, so two calls working from the same
 * snapshot would overwrite each other's writes. Queued, each call reads what the previous one
 * committed.
 */
export async function runSerialized<T>(
  state: StateView,
  sessionId: string,
  agentName: string,
  work: () => Promise<T>,
): Promise<T> {
  let byAgent = queues.get(state);
  if (byAgent === undefined) {
    byAgent = new Map();
    queues.set(state, byAgent);
  }
  const key = `${sessionId}\u0000${agentName}`;
  const previous = byAgent.get(key) ?? Promise.resolve();
  const current = previous.then(work, work);
  const tail = current.then(
    () => undefined,
    () => undefined,
  );
  byAgent.set(key, tail);
  // The last call out removes the entry, so an idle session keeps no queue.
  void tail.then(() => {
    if (byAgent.get(key) === tail) byAgent.delete(key);
  });
  return current;
}
