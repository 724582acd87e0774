import { describe, expect, it } from 'vitest';
import { appendTurnWithRetry } from './append-turn-with-retry.js';
import { MemorySessionStore } from './memory-session-store.js';
import { SessionConflictError } from './session-errors.js';
import type { NewSessionEvent, SessionKey } from './session-store.js';

const key: SessionKey = { userId: 'u', sessionId: 's' };
const message = (text: string): NewSessionEvent => ({ author: 'user', type: 'message', content: text });

describe('appendTurnWithRetry', () => {
  it('creates a session the turn read as missing, and appends the turn', async () => {
    const store = new MemorySessionStore();
    expect(await appendTurnWithRetry(store, key, [message('hi')], 0, 5)).toBe(1);
    expect((await store.getSession(key))?.events.map((event) => event.content)).toEqual(['hi']);
  });

  it('goes on top of what another writer appended after the turn read the session', async () => {
    const store = new MemorySessionStore();
    await store.createSession(key);
    const read = (await store.getSession(key))!.version;
    await store.appendEvents(key, [message('other writer')], { expectedVersion: read });
    const version = await appendTurnWithRetry(store, key, [message('this turn')], read, 5);
    expect(version).toBe(read + 2);
    expect((await store.getSession(key))?.events.map((event) => event.content)).toEqual(['other writer', 'this turn']);
  });

  it('gives up with the conflict after maxAttempts appends', async () => {
    const store = new MemorySessionStore();
    await store.createSession(key);
    const append = store.appendEvents.bind(store);
    let appends = 0;
    // Another writer wins every race: it appends just before each of the turn's attempts.
    store.appendEvents = async (sessionKey, events, options) => {
      appends += 1;
      const current = (await store.getSession(sessionKey, { limit: 0 }))!.version;
      await append(sessionKey, [message(`other ${appends}`)], { expectedVersion: current });
      return append(sessionKey, events, options);
    };
    await expect(appendTurnWithRetry(store, key, [message('this turn')], 0, 3)).rejects.toBeInstanceOf(
      SessionConflictError,
    );
    expect(appends).toBe(3);
  });
});
