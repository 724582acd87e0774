import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearTemporaryState } from '../clear-temporary-state.js';
import {
  SessionConflictError,
  SessionExistsError,
  SessionInputError,
  SessionNotFoundError,
  SessionStoreClosedError,
} from '../session-errors.js';
import type { NewSessionEvent, SessionKey, SessionStore } from '../session-store.js';
import { describeRepeatedAppendCases } from './repeated-append-conformance.js';

/** One isolated place to keep sessions in (a fresh file, key prefix or schema) for one test. */
export interface SessionStoreBackend {
  /**
   * Opens a store on this backend. Called several times in one test: two stores model two
   * processes writing the same sessions, and a store opened after closing the others checks
   * persistence.
   */
  open(): Promise<SessionStore>;
  /** Removes everything the backend holds; called after every store of the test is closed. */
  destroy(): Promise<void>;
}

/** What the session-store conformance suite may assume about the store under test. */
export interface SessionStoreConformanceOptions {
  /** Whether sessions survive closing every store and opening a new one. */
  durable: boolean;
}

/**
 * The behaviour every SessionStore shares, as one vitest suite. Each test gets a fresh backend from
 * `createBackend`, so implementations are compared on exactly the same cases.
 */
export function describeSessionStoreConformance(
  name: string,
  createBackend: () => Promise<SessionStoreBackend>,
  options: SessionStoreConformanceOptions,
): void {
  describe(`${name} session store conformance`, () => {
    let backend: SessionStoreBackend;
    let opened: SessionStore[];

    async function open(): Promise<SessionStore> {
      const store = await backend.open();
      opened.push(store);
      return store;
    }

    beforeEach(async () => {
      opened = [];
      backend = await createBackend();
    });

    afterEach(async () => {
      for (const store of opened) await store.close();
      await backend.destroy();
    });

    const key: SessionKey = { userId: 'user-1', sessionId: 'session-1' };
    const message = (text: string, extra: Partial<NewSessionEvent> = {}): NewSessionEvent => ({
      author: 'user',
      type: 'message',
      content: { role: 'user', content: text },
      ...extra,
    });

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

    it("lists a user's sessions in one app, most recently updated first", async () => {
      const store = await open();
      await store.createSession({ userId: 'user-1', sessionId: 'old' });
      await store.createSession({ userId: 'user-1', sessionId: 'new' });
      await store.createSession({ userId: 'user-2', sessionId: 'theirs' });
      await store.createSession({ appName: 'other-app', userId: 'user-1', sessionId: 'elsewhere' });
      // updatedAt has millisecond resolution; waiting a little makes the order observable.
      await new Promise((resolve) => setTimeout(resolve, 5));
      await store.appendEvents({ userId: 'user-1', sessionId: 'old' }, [message('bump')], { expectedVersion: 0 });
      const listed = await store.listSessions('user-1');
      expect(listed.map((summary) => summary.sessionId)).toEqual(['old', 'new']);
      expect(listed[0]).toMatchObject({ appName: 'default', userId: 'user-1', sessionId: 'old', version: 1 });
      expect(listed[0]).not.toHaveProperty('events');
      expect(
        (await store.listSessions('user-1', { appName: 'other-app' })).map((summary) => summary.sessionId),
      ).toEqual(['elsewhere']);
      expect(await store.listSessions('nobody')).toEqual([]);
    });

    it('deletes a session with its events and state; a new one of the same id starts empty', async () => {
      const store = await open();
      await store.createSession(key, { state: { a: '1' } });
      await store.createSession({ ...key, sessionId: 'neighbour' });
      await store.appendEvents(key, [message('one', { stateDelta: { b: '2' } })], { expectedVersion: 0 });
      expect(await store.deleteSession(key)).toBe(true);
      expect(await store.deleteSession(key)).toBe(false);
      expect(await store.getSession(key)).toBeUndefined();
      expect((await store.listSessions('user-1')).map((summary) => summary.sessionId)).toEqual(['neighbour']);
      await expect(store.appendEvents(key, [message('two')], { expectedVersion: 1 })).rejects.toBeInstanceOf(
        SessionNotFoundError,
      );
      const recreated = await store.createSession(key);
      expect(recreated).toMatchObject({ version: 0, state: {}, events: [] });
      await store.appendEvents(key, [message('fresh')], { expectedVersion: 0 });
      expect((await store.getSession(key))?.events.map((event) => event.content)).toEqual([
        { role: 'user', content: 'fresh' },
      ]);
    });

    it('keeps large events and large states intact', async () => {
      const store = await open();
      await store.createSession(key);
      const big = `${'x'.repeat(2 * 1024 * 1024)}end`;
      const manyKeys = Object.fromEntries(
        Array.from({ length: 500 }, (_, index) => [`key-${index}`, `value-${index}`]),
      );
      const parts = Array.from({ length: 2000 }, (_, index) => ({ type: 'text', text: `part ${index}` }));
      await store.appendEvents(
        key,
        [message(big, { stateDelta: manyKeys }), { author: 'tool', type: 'tool-result', content: parts }],
        { expectedVersion: 0 },
      );
      const session = await store.getSession(key);
      expect((session?.events[0]?.content as { content: string } | undefined)?.content).toBe(big);
      expect(session?.events[1]?.content).toEqual(parts);
      expect(session?.state).toEqual(manyKeys);
    });

    it('keeps unicode and awkward characters in ids, content and state', async () => {
      const store = await open();
      const odd: SessionKey = {
        appName: 'app:with/slashes',
        userId: 'ユーザー 👩‍💻',
        sessionId: 'sess:1/"quoted"\\%2F*?',
      };
      const text = 'héllo 世界 🎉 \u0000 nul, \u2028 separator, "quotes" and \\ backslash';
      // JSON escapes a lone surrogate, so content keeps it; state and ids refuse it (see the bad-input test).
      const content = `${text} lone \ud800 surrogate`;
      await store.createSession(odd, { state: { 'ключ 🔑': text } });
      await store.appendEvents(
        odd,
        [message(content, { author: 'агент', stateDelta: { 'temp:skill:docs_by_agent:a%2Fb/x': '["ü.md"]' } })],
        { expectedVersion: 0 },
      );
      const session = await store.getSession(odd);
      expect(session).toMatchObject({ appName: odd.appName, userId: odd.userId, sessionId: odd.sessionId });
      expect(session?.events[0]).toMatchObject({ author: 'агент', content: { role: 'user', content } });
      expect(session?.state).toEqual({ 'ключ 🔑': text, 'temp:skill:docs_by_agent:a%2Fb/x': '["ü.md"]' });
      expect(
        (await store.listSessions(odd.userId, { appName: odd.appName })).map((summary) => summary.sessionId),
      ).toEqual([odd.sessionId]);
      // Ids that differ only where an encoding could collide stay apart.
      const near: SessionKey = { appName: 'app:with', userId: `slashes:${odd.userId}`, sessionId: odd.sessionId };
      await expect(store.createSession(near)).resolves.toMatchObject({ version: 0 });
      expect((await store.getSession(near))?.events).toEqual([]);
      expect((await store.getSession(odd))?.version).toBe(1);
    });

    it('hands out copies: mutating results changes nothing stored', async () => {
      const store = await open();
      const created = await store.createSession(key, { state: { a: '1' } });
      created.state.a = 'mutated';
      const delta = { b: '2' };
      const content = { role: 'user', content: 'one' };
      const appended = await store.appendEvents(
        key,
        [{ author: 'user', type: 'message', content, stateDelta: delta }],
        { expectedVersion: 0 },
      );
      delta.b = 'mutated';
      content.content = 'mutated';
      (appended.events[0]?.content as { content: string }).content = 'mutated';
      const read = await store.getSession(key);
      read!.events.length = 0;
      read!.state.b = 'mutated';
      const again = await store.getSession(key);
      expect(again?.state).toEqual({ a: '1', b: '2' });
      expect(again?.events[0]?.content).toEqual({ role: 'user', content: 'one' });
    });

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

    if (options.durable) {
      it('keeps sessions after every store is closed and a new one opened', async () => {
        const store = await open();
        await store.createSession(key, { state: { a: '1' } });
        const appended = await store.appendEvents(
          key,
          [message('one', { stateDelta: { b: '2', a: null } }), message('two')],
          { expectedVersion: 0 },
        );
        await store.createSession({ ...key, sessionId: 'second' });
        const before = await store.getSession(key);
        for (const each of opened) await each.close();
        const reopened = await open();
        const after = await reopened.getSession(key);
        expect(after).toEqual(before);
        expect(after?.events).toEqual(appended.events);
        expect((await reopened.listSessions('user-1')).map((summary) => summary.sessionId).sort()).toEqual([
          'second',
          'session-1',
        ]);
        await reopened.appendEvents(key, [message('three')], { expectedVersion: 2 });
        expect((await reopened.getSession(key))?.version).toBe(3);
      });
    }

    describeRepeatedAppendCases(open);
  });
}
