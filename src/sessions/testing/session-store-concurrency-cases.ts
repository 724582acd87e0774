import { expect, it } from 'vitest';
import {
  SessionConflictError,
  SessionExistsError,
  SessionNotFoundError,
  SessionStoreClosedError,
} from '../session-errors.js';
import type { SessionKey } from '../session-store.js';
import type { SessionStoreCases } from './session-store-cases.js';

/**
 * Cases of several stores on one backend (several processes): racing writers, merged state, reused rows, close.
 * Long because it is a list of independent cases, each a few lines over the shared opener.
 */
export function describeSessionStoreConcurrencyCases({ open, key, message }: SessionStoreCases): void {
  it('lets exactly one of two writers with the same expected version win; the other retries and nothing is lost', async () => {
    const first = await open();
    const second = await open();
    await first.createSession(key);
    const results = await Promise.allSettled([
      first.appendEvents(key, [message('from first', { stateDelta: { winner: 'first' } })], { expectedVersion: 0 }),
      second.appendEvents(key, [message('from second', { stateDelta: { winner: 'second' } })], {
        expectedVersion: 0,
      }),
    ]);
    const fulfilled = results.filter((result) => result.status === 'fulfilled');
    const rejected = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(fulfilled).toHaveLength(1);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.reason).toBeInstanceOf(SessionConflictError);
    expect(rejected[0]?.reason).toMatchObject({ expectedVersion: 0, actualVersion: 1 });
    const loserIndex = results.indexOf(rejected[0]!);
    const loser = loserIndex === 0 ? first : second;
    const loserName = loserIndex === 0 ? 'first' : 'second';
    const current = await loser.getSession(key);
    expect(current?.version).toBe(1);
    await loser.appendEvents(key, [message(`from ${loserName}`, { stateDelta: { winner: loserName } })], {
      expectedVersion: current!.version,
    });
    const final = await first.getSession(key);
    expect(final?.events.map((event) => (event.content as { content: string }).content).sort()).toEqual([
      'from first',
      'from second',
    ]);
    expect(final?.events.map((event) => event.version)).toEqual([1, 2]);
    expect(final?.state).toEqual({ winner: loserName });
  });

  it('merges state onto what another store wrote since this store last saw the session', async () => {
    // A store may remember a session's state to append without reading it; that memory must not
    // survive another process's write, nor a delete and re-create of the same session id.
    const first = await open();
    const second = await open();
    await first.createSession(key, { state: { base: 'b' } });
    await first.appendEvents(key, [message('one', { stateDelta: { a: '1' } })], { expectedVersion: 0 });
    await second.appendEvents(key, [message('two', { stateDelta: { b: '2' } })], { expectedVersion: 1 });
    await expect(
      first.appendEvents(key, [message('stale', { stateDelta: { c: 'stale' } })], { expectedVersion: 1 }),
    ).rejects.toMatchObject({ expectedVersion: 1, actualVersion: 2 });
    await first.appendEvents(key, [message('three', { stateDelta: { c: '3' } })], { expectedVersion: 2 });
    expect((await second.getSession(key))?.state).toEqual({ base: 'b', a: '1', b: '2', c: '3' });

    expect(await second.deleteSession(key)).toBe(true);
    await second.createSession(key, { state: { fresh: 'yes' } });
    await expect(
      first.appendEvents(key, [message('old', { stateDelta: { d: '4' } })], { expectedVersion: 3 }),
    ).rejects.toMatchObject({ expectedVersion: 3, actualVersion: 0 });
    await first.appendEvents(key, [message('new', { stateDelta: { d: '4' } })], { expectedVersion: 0 });
    const recreated = await second.getSession(key);
    expect(recreated?.state).toEqual({ fresh: 'yes', d: '4' });
    expect(recreated?.events.map((event) => event.version)).toEqual([1]);

    // Re-created at the same version this store knows (0), perhaps even in the same row slot.
    const other: SessionKey = { ...key, sessionId: `${key.sessionId}-again` };
    await first.createSession(other, { state: { by: 'first' } });
    await second.deleteSession(other);
    await second.createSession(other, { state: { by: 'second' } });
    await first.appendEvents(other, [message('after', { stateDelta: { x: '1' } })], { expectedVersion: 0 });
    expect((await second.getSession(other))?.state).toEqual({ by: 'second', x: '1' });
  });

  it("never lands a stale append in another user's session made after a delete", async () => {
    // Alice's store remembers her session (version 0, empty state); another process deletes it and
    // Bob's new session, also at version 0 and empty, may take the same row slot. Alice's stale
    // append must fail as for a missing session, not be written into Bob's.
    const alice: SessionKey = { userId: 'alice', sessionId: 'chat' };
    const bob: SessionKey = { userId: 'bob', sessionId: 'chat' };
    const first = await open();
    const second = await open();
    await first.createSession(alice);
    await first.getSession(alice);
    expect(await second.deleteSession(alice)).toBe(true);
    await second.createSession(bob);
    await expect(
      first.appendEvents(alice, [message('for alice', { stateDelta: { owner: 'alice' } })], { expectedVersion: 0 }),
    ).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(await second.getSession(bob)).toMatchObject({ version: 0, state: {}, events: [] });
    expect(await first.getSession(bob)).toMatchObject({ version: 0, state: {}, events: [] });
    expect(await first.getSession(alice)).toBeUndefined();

    // The same after a turn, with the state Bob starts from equal to the one Alice's store knows.
    await second.createSession(alice, { state: { plan: 'free' } });
    await first.appendEvents(alice, [message('one')], { expectedVersion: 0 });
    expect(await second.deleteSession(alice)).toBe(true);
    const carol: SessionKey = { appName: 'other-app', userId: 'carol', sessionId: 'chat' };
    await second.createSession(carol, { state: { plan: 'free' } });
    await second.appendEvents(carol, [message('carol one')], { expectedVersion: 0 });
    await expect(first.appendEvents(alice, [message('for alice')], { expectedVersion: 1 })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    expect((await first.getSession(carol))?.events.map((event) => event.content)).toEqual([
      { role: 'user', content: 'carol one' },
    ]);
  });

  it('lets exactly one of two stores create the same session', async () => {
    const first = await open();
    const second = await open();
    const results = await Promise.allSettled([
      first.createSession(key, { state: { by: 'first' } }),
      second.createSession(key, { state: { by: 'second' } }),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(rejected?.reason).toBeInstanceOf(SessionExistsError);
  });

  it('keeps every event when several writers append concurrently with retries', async () => {
    const stores = [await open(), await open(), await open()];
    await stores[0]!.createSession(key);
    const perWriter = 4;
    await Promise.all(
      stores.map(async (store, writer) => {
        for (let index = 0; index < perWriter; index += 1) {
          for (;;) {
            const session = await store.getSession(key, { limit: 0 });
            try {
              await store.appendEvents(
                key,
                [message(`${writer}:${index}`, { stateDelta: { [`writer-${writer}`]: String(index) } })],
                { expectedVersion: session!.version },
              );
              break;
            } catch (error) {
              if (!(error instanceof SessionConflictError)) throw error;
            }
          }
        }
      }),
    );
    const session = await stores[1]!.getSession(key);
    expect(session?.version).toBe(stores.length * perWriter);
    expect(session?.events.map((event) => event.version)).toEqual(
      Array.from({ length: stores.length * perWriter }, (_, index) => index + 1),
    );
    for (let writer = 0; writer < stores.length; writer += 1) {
      const own = session!.events
        .map((event) => (event.content as { content: string }).content)
        .filter((text) => text.startsWith(`${writer}:`));
      expect(own).toEqual(Array.from({ length: perWriter }, (_, index) => `${writer}:${index}`));
      expect(session?.state[`writer-${writer}`]).toBe(String(perWriter - 1));
    }
  });

  it('refuses calls after close', async () => {
    const store = await open();
    await store.createSession(key);
    await store.close();
    await expect(store.getSession(key)).rejects.toBeInstanceOf(SessionStoreClosedError);
    await expect(store.appendEvents(key, [message('x')], { expectedVersion: 0 })).rejects.toBeInstanceOf(
      SessionStoreClosedError,
    );
    await expect(store.close()).resolves.toBeUndefined();
  });
}
