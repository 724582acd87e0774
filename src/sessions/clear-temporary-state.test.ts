import { describe, expect, it } from 'vitest';
import { clearTemporaryState } from './clear-temporary-state.js';
import { MemorySessionStore } from './memory-session-store.js';
import { SessionConflictError, SessionInputError } from './session-errors.js';
import type { AppendEventsOptions, NewSessionEvent, SessionKey } from './session-store.js';

/** A store where another writer slips in an event right before each of the first `interruptions` appends. */
class InterruptedStore extends MemorySessionStore {
  interruptions: number;

  constructor(interruptions: number) {
    super();
    this.interruptions = interruptions;
  }

  override async appendEvents(key: SessionKey, events: NewSessionEvent[], options: AppendEventsOptions) {
    if (this.interruptions > 0) {
      this.interruptions -= 1;
      const current = await this.getSession(key, { limit: 0 });
      await super.appendEvents(
        key,
        [{ author: 'other', type: 'state', stateDelta: { [`temp:other-${this.interruptions}`]: 'x' } }],
        { expectedVersion: current!.version },
      );
    }
    return super.appendEvents(key, events, options);
  }
}

describe('clearTemporaryState', () => {
  const key = { userId: 'u', sessionId: 's' };

  it('re-reads after a conflict and clears what the other writer added too', async () => {
    const store = new InterruptedStore(2);
    await store.createSession(key, { state: { 'temp:a': '1', kept: 'k' } });
    const result = await clearTemporaryState(store, key);
    expect(result.version).toBe(3);
    expect(result.clearedKeys.sort()).toEqual(['temp:a', 'temp:other-0', 'temp:other-1']);
    expect((await store.getSession(key))?.state).toEqual({ kept: 'k' });
  });

  it('gives up with the conflict after maxAttempts', async () => {
    const store = new InterruptedStore(3);
    await store.createSession(key, { state: { 'temp:a': '1' } });
    await expect(clearTemporaryState(store, key, { maxAttempts: 2 })).rejects.toBeInstanceOf(SessionConflictError);
  });

  it('refuses bad options before touching the store', async () => {
    const store = new MemorySessionStore();
    await store.createSession(key, { state: { 'temp:a': '1' } });
    await expect(clearTemporaryState(store, key, { prefix: '' })).rejects.toMatchObject({ argument: 'options.prefix' });
    await expect(clearTemporaryState(store, key, { maxAttempts: 0 })).rejects.toBeInstanceOf(SessionInputError);
    expect((await store.getSession(key))?.version).toBe(0);
  });
});
