/**
 * What a durable turn needs of its journal: Restate's context in production
 * (`restateTurnJournal`), an in-memory one in unit tests. `run` records `action`'s result under
 * `name` the first time and answers with it on every replay without running `action` again.
 */
export interface TurnJournal {
  /** Names the turn across retries and workers (Restate's invocation id). */
  readonly invocationId: string;
  /**
   * Aborted when this attempt is over (Restate gave the turn to another attempt, or the server
   * went away): the attempt stops its model stream and tools, and must not write anything.
   */
  readonly attemptEnded?: AbortSignal;
  run<T>(name: string, action: () => Promise<T>): Promise<T>;
  /** A promise a person's answer resolves from outside (`resolve` with the id, via the `approve` handler). */
  awakeable<T>(): { id: string; promise: Promise<T> };
}
