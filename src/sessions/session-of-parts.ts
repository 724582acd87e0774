import type { NormalizedSessionKey } from './session-input.js';
import type { Session, SessionEvent } from './session-store.js';

/**
 * A session result written out property by property. The stores used to spread the key (or a
 * row's summary) and add the rest, `{ ...key, version, … }`; on Node 20 (V8 11) every property
 * added after a spread in an object literal takes a slow path, about 1.5 µs each, so the five
 * added to a read's result cost 6-8 µs: 5-8% of reading the last 20 events from Redis or SQLite
 * (see bench/sessions.bench.ts). A spread alone (`{ ...state }`) is not affected.
 */
export function sessionOfParts(
  key: NormalizedSessionKey,
  version: number,
  createdAt: number,
  updatedAt: number,
  state: Record<string, string>,
  events: SessionEvent[],
): Session {
  return {
    appName: key.appName,
    userId: key.userId,
    sessionId: key.sessionId,
    version,
    createdAt,
    updatedAt,
    state,
    events,
  };
}
