import type { StateView } from './types.js';

/** A StateView over a Map that also records what was written, for tests and simple callers. */
export interface InMemoryStateView extends StateView {
  /** Every write since creation (or the last `commit`/`discard`); `null` marks a deletion. */
  delta(): Record<string, string | null>;
  /** The current state (base plus pending writes) as a new Map. */
  snapshot(): Map<string, string>;
  /** Makes pending writes part of the base and forgets them as a delta. */
  commit(): void;
  /** Drops pending writes (what a caller does when a tool call failed). */
  discard(): void;
}

/** A state view over a Map, for tools used without a session store (tests, scripts). */
export function createInMemoryStateView(
  initial?: Iterable<readonly [string, string]> | Record<string, string>,
): InMemoryStateView {
  const base = new Map<string, string>(
    initial === undefined
      ? []
      : Symbol.iterator in Object(initial)
        ? (initial as Iterable<readonly [string, string]>)
        : Object.entries(initial),
  );
  let pending = new Map<string, string | null>();
  const current = () => {
    const result = new Map(base);
    for (const [key, value] of pending) {
      if (value === null) result.delete(key);
      else result.set(key, value);
    }
    return result;
  };
  return {
    get(key) {
      if (pending.has(key)) return pending.get(key) ?? undefined;
      return base.get(key);
    },
    set(key, value) {
      if (typeof key !== 'string' || key === '') throw new TypeError('state key must be a non-empty string');
      if (value !== null && typeof value !== 'string')
        throw new TypeError(`state value for "${key}" must be a string or null`);
      pending.set(key, value);
    },
    keys: () => [...current().keys()],
    delta: () => Object.fromEntries(pending),
    snapshot: current,
    commit() {
      const next = current();
      base.clear();
      for (const [key, value] of next) base.set(key, value);
      pending = new Map();
    },
    discard() {
      pending = new Map();
    },
  };
}
