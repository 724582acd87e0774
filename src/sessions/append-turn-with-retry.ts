import { SessionConflictError, SessionExistsError, SessionNotFoundError } from './session-errors.js';
import type { NewSessionEvent, SessionKey, SessionStore } from './session-store.js';

/**
 * Appends one turn's events after the version the turn read. When another writer appended
 * meanwhile, the turn goes on top of their events (re-reading only the version), so neither loses
 * anything; a session that did not exist when the turn read it (version 0) is created first, unless
 * another writer created it already. Gives up after `maxAttempts` appends, with the store's error.
 * Returns the session's version after the append.
 */
export async function appendTurnWithRetry(
  store: SessionStore,
  key: SessionKey,
  events: NewSessionEvent[],
  readVersion: number,
  maxAttempts: number,
): Promise<number> {
  let expectedVersion = readVersion;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return (await store.appendEvents(key, events, { expectedVersion })).version;
    } catch (error) {
      if (error instanceof SessionNotFoundError && expectedVersion === 0 && attempt < maxAttempts) {
        await ensureSession(store, key);
        continue;
      }
      if (!(error instanceof SessionConflictError) || attempt >= maxAttempts) throw error;
      const current = await store.getSession(key, { limit: 0 });
      if (!current) throw error;
      expectedVersion = current.version;
    }
  }
}

/** Creates the session unless another writer did first; a turn creates it only when it has something to store. */
async function ensureSession(store: SessionStore, key: SessionKey): Promise<void> {
  try {
    await store.createSession(key);
  } catch (error) {
    if (!(error instanceof SessionExistsError)) throw error;
  }
}
