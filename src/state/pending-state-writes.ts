import type { StateDelta, StateReader } from './state-delta.js';
import type { StateView } from './state-view.js';

/** A base a commit can write into: a `StateView`, or anything else with `set(key, value | null)`. */
interface WritableStateReader extends StateReader {
  set(key: string, value: string | null): void;
}

/**
 * How a commit writes one key into the base, or undefined for a read-only base. A Map's own `set`
 * would store `null` instead of deleting, so a Map is written through its `delete`.
 */
function writerOf(base: StateReader): ((key: string, value: string | null) => void) | undefined {
  if (base instanceof Map)
    return (key, value) => {
      if (value === null) base.delete(key);
      else base.set(key, value);
    };
  const set = (base as Partial<WritableStateReader>).set;
  return typeof set === 'function' ? (key, value) => set.call(base, key, value) : undefined;
}

/**
 * Writes held over a base state: reads see the base with the writes on top, the base is not
 * touched until `commit`. The one implementation behind every "state as it would be" in skillbox:
 * a disclosure transition's look-ahead (`overlayState`), a tool call's isolated writes (the AI SDK
 * adapter and the MCP server commit them only when the call succeeds), and the in-memory state of
 * a turn or an MCP connection (`createInMemoryStateView`).
 */
export class PendingStateWrites implements StateView {
  readonly #base: StateReader;
  #pending: Map<string, string | null>;

  constructor(base: StateReader, pending: StateDelta = {}) {
    this.#base = base;
    this.#pending = new Map(Object.entries(pending));
  }

  get(key: string): string | undefined {
    if (this.#pending.has(key)) return this.#pending.get(key) ?? undefined;
    return this.#base.get(key);
  }

  set(key: string, value: string | null): void {
    if (typeof key !== 'string' || key === '') throw new TypeError('state key must be a non-empty string');
    if (value !== null && typeof value !== 'string')
      throw new TypeError(`state value for "${key}" must be a string or null`);
    this.#pending.set(key, value);
  }

  /** The base's keys without the deleted ones, then the keys the writes add, in the order written. */
  keys(): string[] {
    const present: string[] = [];
    for (const key of this.#base.keys()) {
      if (!this.#pending.has(key) || this.#pending.get(key) !== null) present.push(key);
    }
    for (const [key, value] of this.#pending) {
      if (value !== null && this.#base.get(key) === undefined) present.push(key);
    }
    return present;
  }

  /** Every write held, `null` marking a deletion; a write of the value already there is included. */
  delta(): StateDelta {
    return Object.fromEntries(this.#pending);
  }

  /** The state as it reads now (base plus writes), as a new Map. */
  snapshot(): Map<string, string> {
    const result = new Map<string, string>();
    for (const key of this.keys()) {
      const value = this.get(key);
      if (value !== undefined) result.set(key, value);
    }
    return result;
  }

  /**
   * Writes the held writes into the base and forgets them. Returns what changed: writing back the
   * value already there is no change, and leaving it out keeps events and stored deltas honest.
   * A base without `set` (a read-only snapshot) cannot take a commit.
   */
  commit(): StateDelta {
    const write = writerOf(this.#base);
    if (write === undefined) throw new TypeError('these pending state writes are over a read-only state');
    const changed: StateDelta = {};
    for (const [key, value] of this.#pending) {
      if ((this.#base.get(key) ?? null) === value) continue;
      write(key, value);
      changed[key] = value;
    }
    this.#pending = new Map();
    return changed;
  }

  /** Drops the held writes (what a caller does when a tool call failed). */
  discard(): void {
    this.#pending = new Map();
  }
}
