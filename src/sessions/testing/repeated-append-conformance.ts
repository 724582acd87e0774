import { expect, it } from 'vitest';
import { appendEventsOnce } from '../append-events-once.js';
import { SessionConflictError } from '../session-errors.js';
import type { NewSessionEvent, SessionKey, SessionStore } from '../session-store.js';

/**
 * Cases of the session-store conformance suite for a repeated append (`appendEventsOnce`): what a
 * durable runner relies on when it replays a turn whose append was stored but whose answer was lost.
 * They hold for a store only if it keeps caller-given ids and never changes a stored event, which is
 * what they check, through two stores on one backend (two processes).
 */
export function describeRepeatedAppendCases(open: () => Promise<SessionStore>): void {
  const key: SessionKey = { userId: 'user-1', sessionId: 'repeated' };
  const event = (id: string, extra: Partial<NewSessionEvent> = {}): NewSessionEvent => ({
    id,
    author: 'agent',
    type: 'message',
    content: { role: 'assistant', content: id },
    ...extra,
  });

  it('answers a repeated append with what was stored, and writes it once', async () => {
    const first = await open();
    const second = await open();
    await first.createSession(key, { state: { count: '0' } });
    const turn = [event('turn-1/a', { stateDelta: { count: '1' } }), event('turn-1/b')];
    const stored = await appendEventsOnce(first, key, turn, { expectedVersion: 0 });
    await first.appendEvents(key, [event('later')], { expectedVersion: 2 });
    const repeated = await appendEventsOnce(second, key, turn, { expectedVersion: 0 });
    expect(repeated).toEqual(stored);
    const session = await second.getSession(key);
    expect(session?.events.map((each) => each.id)).toEqual(['turn-1/a', 'turn-1/b', 'later']);
    expect(session?.state).toEqual({ count: '1' });
  });

  it('still refuses an append that other events got ahead of, even when one id matches', async () => {
    const store = await open();
    await store.createSession(key);
    await store.appendEvents(key, [event('turn-1/a'), event('someone-else')], { expectedVersion: 0 });
    const conflict = appendEventsOnce(store, key, [event('turn-1/a'), event('turn-1/b')], { expectedVersion: 0 });
    await expect(conflict).rejects.toBeInstanceOf(SessionConflictError);
    await expect(appendEventsOnce(store, key, [event('turn-2/a')], { expectedVersion: 1 })).rejects.toMatchObject({
      code: 'SESSION_CONFLICT',
      expectedVersion: 1,
      actualVersion: 2,
    });
    // The same ids stored at other versions are not this append either.
    await expect(appendEventsOnce(store, key, [event('someone-else')], { expectedVersion: 0 })).rejects.toBeInstanceOf(
      SessionConflictError,
    );
  });

  it('asks for every id before writing anything', async () => {
    const store = await open();
    await store.createSession(key);
    await expect(
      appendEventsOnce(store, key, [event('a'), { author: 'agent', type: 'message' }], { expectedVersion: 0 }),
    ).rejects.toMatchObject({ code: 'SESSION_INPUT_INVALID', argument: 'events[1].id' });
    expect((await store.getSession(key))?.version).toBe(0);
  });
}
