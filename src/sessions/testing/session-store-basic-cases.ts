import { expect, it } from 'vitest';
import { clearTemporaryState } from '../clear-temporary-state.js';
import {
  SessionConflictError,
  SessionExistsError,
  SessionInputError,
  SessionNotFoundError,
} from '../session-errors.js';
import type { NewSessionEvent, SessionKey } from '../session-store.js';
import type { SessionStoreCases } from './session-store-cases.js';

/**
 * Cases of one store: creating, reading, appending, state deltas, refusals of bad input.
 * Long because it is a list of independent cases, each a few lines over the shared opener.
 */
export function describeSessionStoreBasicCases({ open, key, message }: SessionStoreCases): void {
  it('creates a session at version 0 with its initial state and reads it back', async () => {
    const store = await open();
    const before = Date.now();
    const created = await store.createSession(key, { state: { greeting: 'hello' } });
    expect(created).toMatchObject({
      appName: 'default',
      userId: 'user-1',
      sessionId: 'session-1',
      version: 0,
      state: { greeting: 'hello' },
      events: [],
    });
    expect(created.createdAt).toBeGreaterThanOrEqual(before);
    expect(created.updatedAt).toBe(created.createdAt);
    expect(await store.getSession(key)).toEqual(created);
    expect(await store.getSession({ ...key, appName: 'default' })).toEqual(created);
  });

  it('refuses to create a session twice and keeps the first one', async () => {
    const store = await open();
    await store.createSession(key, { state: { first: 'yes' } });
    await store.appendEvents(key, [message('one')], { expectedVersion: 0 });
    await expect(store.createSession(key, { state: { second: 'yes' } })).rejects.toBeInstanceOf(SessionExistsError);
    const session = await store.getSession(key);
    expect(session?.state).toEqual({ first: 'yes' });
    expect(session?.version).toBe(1);
  });

  it('returns undefined for a session that does not exist', async () => {
    const store = await open();
    expect(await store.getSession(key)).toBeUndefined();
    await store.createSession(key);
    expect(await store.getSession({ ...key, sessionId: 'other' })).toBeUndefined();
    expect(await store.getSession({ ...key, userId: 'other' })).toBeUndefined();
    expect(await store.getSession({ ...key, appName: 'other' })).toBeUndefined();
  });

  it('appends events in order, numbering versions from 1, and keeps what the caller gave', async () => {
    const store = await open();
    await store.createSession(key);
    const first = await store.appendEvents(
      key,
      [
        message('one', { id: 'event-a', timestamp: 1000 }),
        {
          author: 'assistant',
          type: 'tool-call',
          content: {
            role: 'assistant',
            content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'skill_load', input: { skill: 'x' } }],
          },
          usage: { inputTokens: 12, outputTokens: 3 },
        },
      ],
      { expectedVersion: 0 },
    );
    expect(first.version).toBe(2);
    expect(first.events.map((event) => event.version)).toEqual([1, 2]);
    expect(first.events[0]).toEqual({
      version: 1,
      id: 'event-a',
      author: 'user',
      type: 'message',
      timestamp: 1000,
      content: { role: 'user', content: 'one' },
    });
    expect(typeof first.events[1]?.id).toBe('string');
    expect(first.events[1]?.id).not.toBe('');
    const second = await store.appendEvents(key, [message('three', { metadata: { turn: 2, tags: ['a', null] } })], {
      expectedVersion: 2,
    });
    expect(second.version).toBe(3);
    const session = await store.getSession(key);
    expect(session?.version).toBe(3);
    expect(session?.events).toEqual([...first.events, ...second.events]);
    expect(session?.events[1]?.usage).toEqual({ inputTokens: 12, outputTokens: 3 });
    expect(session?.updatedAt).toBeGreaterThanOrEqual(session?.createdAt ?? Infinity);
  });

  it('reads the tail of a session with afterVersion and limit', async () => {
    const store = await open();
    await store.createSession(key);
    await store.appendEvents(
      key,
      ['a', 'b', 'c', 'd', 'e'].map((text) => message(text)),
      { expectedVersion: 0 },
    );
    const versions = async (options: { afterVersion?: number; limit?: number }) =>
      (await store.getSession(key, options))?.events.map((event) => event.version);
    expect(await versions({ afterVersion: 3 })).toEqual([4, 5]);
    expect(await versions({ limit: 2 })).toEqual([4, 5]);
    expect(await versions({ afterVersion: 1, limit: 10 })).toEqual([2, 3, 4, 5]);
    expect(await versions({ afterVersion: 5 })).toEqual([]);
    expect(await versions({ limit: 0 })).toEqual([]);
    const tail = await store.getSession(key, { limit: 0 });
    expect(tail?.version).toBe(5);
    await expect(store.getSession(key, { limit: -1 })).rejects.toBeInstanceOf(SessionInputError);
    await expect(store.getSession(key, { afterVersion: 1.5 })).rejects.toBeInstanceOf(SessionInputError);
  });

  it('applies state deltas with the append: set, overwrite, delete, in event order, temp: keys included', async () => {
    const store = await open();
    await store.createSession(key, { state: { keep: 'k', drop: 'd' } });
    await store.appendEvents(
      key,
      [
        message('one', { stateDelta: { a: '1', 'temp:skill:loaded_by_agent:agent/x': '1' } }),
        message('two', { stateDelta: { a: '2', drop: null, missing: null } }),
      ],
      { expectedVersion: 0 },
    );
    expect((await store.getSession(key))?.state).toEqual({
      keep: 'k',
      a: '2',
      'temp:skill:loaded_by_agent:agent/x': '1',
    });
    await store.appendEvents(
      key,
      [{ author: 'agent', type: 'state', stateDelta: { 'temp:skill:loaded_by_agent:agent/x': null, empty: '' } }],
      { expectedVersion: 2 },
    );
    const session = await store.getSession(key);
    expect(session?.state).toEqual({ keep: 'k', a: '2', empty: '' });
    expect(session?.events[2]?.stateDelta).toEqual({ 'temp:skill:loaded_by_agent:agent/x': null, empty: '' });
  });

  it("keeps state keys and content fields named like Object.prototype's members", async () => {
    // A plain object assignment to "__proto__" sets the prototype instead (and ignores a string):
    // a store building its state or reply objects that way would drop the key without a word.
    const store = await open();
    const initial = JSON.parse('{"__proto__":"initial","constructor":"c"}') as Record<string, string>;
    expect((await store.createSession(key, { state: initial })).state).toEqual(initial);
    expect((await store.getSession(key))?.state).toEqual(initial);
    const content = JSON.parse('{"__proto__":{"toString":"t"},"hasOwnProperty":1}') as unknown;
    await store.appendEvents(
      key,
      [message('one', { content, stateDelta: JSON.parse('{"__proto__":"set","toString":"s"}') })],
      { expectedVersion: 0 },
    );
    const session = await store.getSession(key);
    expect(Object.getPrototypeOf(session?.state)).toBe(Object.prototype);
    expect(Object.entries(session?.state ?? {}).sort()).toEqual([
      ['__proto__', 'set'],
      ['constructor', 'c'],
      ['toString', 's'],
    ]);
    expect(session?.events[0]?.content).toEqual(content);
    expect(Object.keys(session?.events[0]?.stateDelta ?? {})).toEqual(['__proto__', 'toString']);
    await store.appendEvents(key, [message('two', { stateDelta: JSON.parse('{"__proto__":null}') })], {
      expectedVersion: 1,
    });
    expect(Object.keys((await store.getSession(key))?.state ?? {}).sort()).toEqual(['constructor', 'toString']);
  });

  it('clears temp: keys through a logged state event only when asked', async () => {
    const store = await open();
    await store.createSession(key, { state: { 'temp:a': '1', 'temp:skill:b': '2', user: 'u' } });
    expect(await clearTemporaryState(store, key, { prefix: 'temp:skill:' })).toEqual({
      version: 1,
      clearedKeys: ['temp:skill:b'],
    });
    expect(await clearTemporaryState(store, key)).toEqual({ version: 2, clearedKeys: ['temp:a'] });
    expect(await clearTemporaryState(store, key)).toEqual({ version: 2, clearedKeys: [] });
    const session = await store.getSession(key);
    expect(session?.state).toEqual({ user: 'u' });
    expect(session?.events.map((event) => [event.author, event.type, event.stateDelta])).toEqual([
      ['system', 'state', { 'temp:skill:b': null }],
      ['system', 'state', { 'temp:a': null }],
    ]);
    await expect(clearTemporaryState(store, { ...key, sessionId: 'nope' })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
  });

  it('refuses a stale expected version and writes nothing', async () => {
    const store = await open();
    await store.createSession(key);
    await store.appendEvents(key, [message('one', { stateDelta: { a: '1' } })], { expectedVersion: 0 });
    const error = await store
      .appendEvents(key, [message('late', { stateDelta: { a: 'late' } })], { expectedVersion: 0 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionConflictError);
    expect(error).toMatchObject({ code: 'SESSION_CONFLICT', expectedVersion: 0, actualVersion: 1 });
    await expect(store.appendEvents(key, [message('future')], { expectedVersion: 5 })).rejects.toBeInstanceOf(
      SessionConflictError,
    );
    const session = await store.getSession(key);
    expect(session?.version).toBe(1);
    expect(session?.state).toEqual({ a: '1' });
    expect(session?.events).toHaveLength(1);
  });

  it('refuses appends to an unknown session', async () => {
    const store = await open();
    await expect(store.appendEvents(key, [message('one')], { expectedVersion: 0 })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    expect(await store.getSession(key)).toBeUndefined();
    expect(await store.listSessions('user-1')).toEqual([]);
  });

  it('refuses bad ids, naming the argument', async () => {
    const store = await open();
    const bad: [SessionKey, string][] = [
      [{ userId: '', sessionId: 's' }, 'key.userId'],
      [{ userId: 'u', sessionId: '  ' }, 'key.sessionId'],
      [{ userId: 'u', sessionId: 'a\nb' }, 'key.sessionId'],
      [{ userId: 'u', sessionId: 'x'.repeat(257) }, 'key.sessionId'],
      [{ userId: 'u\udc00', sessionId: 's' }, 'key.userId'],
      [{ userId: 42 as unknown as string, sessionId: 's' }, 'key.userId'],
      [{ appName: '', userId: 'u', sessionId: 's' }, 'key.appName'],
    ];
    for (const [badKey, argument] of bad) {
      await expect(store.createSession(badKey)).rejects.toMatchObject({ name: 'SessionInputError', argument });
      await expect(store.getSession(badKey)).rejects.toMatchObject({ argument });
      await expect(store.appendEvents(badKey, [message('x')], { expectedVersion: 0 })).rejects.toMatchObject({
        argument,
      });
      await expect(store.deleteSession(badKey)).rejects.toMatchObject({ argument });
    }
    await expect(store.listSessions('')).rejects.toMatchObject({ argument: 'userId' });
    await expect(store.listSessions('u', { appName: 'a\u0000' })).rejects.toMatchObject({
      argument: 'options.appName',
    });
  });

  it('refuses a batch with one bad event and writes none of it', async () => {
    const store = await open();
    await store.createSession(key, { state: { a: 'before' } });
    const good = message('good', { stateDelta: { a: 'after' } });
    const cases: [unknown, string][] = [
      [{ type: 'message' }, 'events[1].author'],
      [{ author: 'user', type: '' }, 'events[1].type'],
      [{ author: 'user', type: 'message', content: new Uint8Array([1, 2]) }, 'events[1].content'],
      [
        { author: 'user', type: 'message', content: { parts: [{ data: Number.NaN }] } },
        'events[1].content.parts[0].data',
      ],
      [{ author: 'user', type: 'message', content: [1, undefined] }, 'events[1].content[1]'],
      [{ author: 'user', type: 'message', content: new Date(0) }, 'events[1].content'],
      [{ author: 'user', type: 'message', stateDelta: { b: 3 } }, 'events[1].stateDelta["b"]'],
      [{ author: 'user', type: 'message', stateDelta: { '': 'x' } }, 'events[1].stateDelta'],
      [{ author: 'user', type: 'message', stateDelta: { a: 'lone \ud800' } }, 'events[1].stateDelta["a"]'],
      [{ author: 'user', type: 'message', timestamp: 'now' }, 'events[1].timestamp'],
      [{ author: 'user', type: 'message', extra: 1 }, 'events[1].extra'],
      [{ author: 'user', type: 'message', usage: { inputTokens: '3' } }, 'events[1].usage.inputTokens'],
    ];
    for (const [bad, argument] of cases) {
      await expect(
        store.appendEvents(key, [good, bad as NewSessionEvent], { expectedVersion: 0 }),
      ).rejects.toMatchObject({ name: 'SessionInputError', argument });
    }
    await expect(store.appendEvents(key, [], { expectedVersion: 0 })).rejects.toMatchObject({ argument: 'events' });
    await expect(store.appendEvents(key, [good], { expectedVersion: -1 })).rejects.toMatchObject({
      argument: 'options.expectedVersion',
    });
    await expect(
      store.appendEvents(key, [good], undefined as unknown as { expectedVersion: number }),
    ).rejects.toMatchObject({ argument: 'options.expectedVersion' });
    await expect(
      store.createSession({ ...key, sessionId: 'other' }, { state: { n: 1 as unknown as string } }),
    ).rejects.toMatchObject({ argument: 'options.state["n"]' });
    expect(await store.getSession({ ...key, sessionId: 'other' })).toBeUndefined();
    const session = await store.getSession(key);
    expect(session?.version).toBe(0);
    expect(session?.state).toEqual({ a: 'before' });
    expect(session?.events).toEqual([]);
  });
}
