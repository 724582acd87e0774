import { expect, it } from 'vitest';
import { SessionNotFoundError } from '../session-errors.js';
import type { SessionKey } from '../session-store.js';
import type { SessionStoreCases } from './session-store-cases.js';

/**
 * Cases of what a store keeps: listing, deleting, large and awkward content, copies handed out.
 * Long because it is a list of independent cases, each a few lines over the shared opener.
 */
export function describeSessionStoreContentCases({ open, key, message }: SessionStoreCases): void {
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
    expect((await store.listSessions('user-1', { appName: 'other-app' })).map((summary) => summary.sessionId)).toEqual([
      'elsewhere',
    ]);
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
    const manyKeys = Object.fromEntries(Array.from({ length: 500 }, (_, index) => [`key-${index}`, `value-${index}`]));
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
    const appended = await store.appendEvents(key, [{ author: 'user', type: 'message', content, stateDelta: delta }], {
      expectedVersion: 0,
    });
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
}
