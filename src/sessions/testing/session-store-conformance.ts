import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewSessionEvent, SessionKey, SessionStore } from '../session-store.js';
import { describeRepeatedAppendCases } from './repeated-append-conformance.js';
import { describeSessionStoreBasicCases } from './session-store-basic-cases.js';
import { describeSessionStoreConcurrencyCases } from './session-store-concurrency-cases.js';
import { describeSessionStoreContentCases } from './session-store-content-cases.js';

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

    const cases = { open, key, message };
    describeSessionStoreBasicCases(cases);
    describeSessionStoreContentCases(cases);
    describeSessionStoreConcurrencyCases(cases);

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
