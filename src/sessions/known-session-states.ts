import type { NormalizedSessionKey } from './session-input.js';

/** What a store last wrote or read of one session: enough to append without reading it first. */
export interface KnownSession {
  /** The store's row id of the session. */
  id: number | string;
  version: number;
  state: Record<string, string>;
  /** `state` exactly as stored (the JSON text), for stores that compare it. */
  stateText: string;
}

/** Sessions remembered at once: a process usually appends to a few sessions at a time. */
const rememberedSessions = 256;

/**
 * The state of recently used sessions at their current version, so an append can compute the new
 * state without a round trip to read it. Safe because a session's state changes only with its
 * version: an append writes only where the stored version (and row) still match what is known
 * here, and otherwise falls back to reading the session under a lock, which also catches writes by
 * other processes. Bounded; the least recently used session is forgotten first.
 */
export class KnownSessionStates {
  readonly #sessions = new Map<string, KnownSession>();
  /**
   * The most recently remembered key. A process appending turn after turn to one session would
   * otherwise delete and re-insert that session's entry on every append to keep it the newest,
   * which made the Map rehash its deleted slots; it is the newest already.
   */
  #newest: string | undefined;

  static keyOf(key: NormalizedSessionKey): string {
    const last = KnownSessionStates.#lastKey;
    if (key.sessionId === last.sessionId && key.userId === last.userId && key.appName === last.appName)
      return last.text;
    // A checked id holds no control character, so NUL keeps the three parts apart; JSON.stringify
    // of the three cost about 0.4 µs on every append and read, this a few nanoseconds.
    const text = `${key.appName}\u0000${key.userId}\u0000${key.sessionId}`;
    KnownSessionStates.#lastKey = { appName: key.appName, userId: key.userId, sessionId: key.sessionId, text };
    return text;
  }

  /**
   * The last key made, handed out again for the same session: a process appending turn after turn
   * asks for one session's key on every call, and a new one was a joined string to allocate, then
   * to flatten and hash for the map, on each (about 200 bytes an append, the store's garbage that
   * the bare driver does not make). Comparing the ids is a pointer check when the caller passes the
   * same strings, as a runner holding its session's key does.
   */
  static #lastKey = { appName: '', userId: '', sessionId: '', text: '' };

  get(key: string): KnownSession | undefined {
    return this.#sessions.get(key);
  }

  remember(key: string, session: KnownSession): void {
    if (key !== this.#newest) {
      this.#sessions.delete(key);
      if (this.#sessions.size >= rememberedSessions) this.#sessions.delete(this.#sessions.keys().next().value!);
      this.#newest = key;
    }
    this.#sessions.set(key, session);
  }

  forget(key: string): void {
    this.#sessions.delete(key);
    if (key === this.#newest) this.#newest = undefined;
  }
}
