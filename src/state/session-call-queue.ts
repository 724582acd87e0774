/**
 * Runs the state-writing calls of one session and agent one at a time. A model may ask for several
 * tool calls at once (the AI SDK starts a step's calls together; an MCP host may send requests
 * without waiting), and a disclosure tool computes keys such as the loaded order from what it
 * reads, so two calls working from the same snapshot would overwrite each other's writes. Queued,
 * each call reads what the previous one committed. Used by the AI SDK tool adapter and the MCP
 * server alike.
 */
export class SessionCallQueue {
  /** The tail of each (session, agent) queue; the last call out removes it, so an idle session keeps none. */
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `work` once every call queued earlier for the same session and agent has finished (successfully or not). */
  run<T>(sessionId: string, agentName: string, work: () => Promise<T>): Promise<T> {
    const key = `${sessionId}\u0000${agentName}`;
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const current = previous.then(work, work);
    const tail = current.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return current;
  }
}

/**
 * One queue per state object: callers that share a session's state share its queue, and a WeakMap
 * lets a state that is no longer referenced take its queue with it.
 */
const queuesByState = new WeakMap<object, SessionCallQueue>();

/** The queue of the calls working on `state`. */
export function callQueueOf(state: object): SessionCallQueue {
  let queue = queuesByState.get(state);
  if (queue === undefined) {
    queue = new SessionCallQueue();
    queuesByState.set(state, queue);
  }
  return queue;
}
