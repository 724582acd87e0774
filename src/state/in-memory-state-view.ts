import { PendingStateWrites } from './pending-state-writes.js';
import type { StateView } from './state-view.js';

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

/** A state view over a Map, for tools used without a session store (tests, scripts, one MCP connection). */
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
  return new PendingStateWrites(base);
}
