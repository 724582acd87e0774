import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendUntilKilled, expectAcknowledgedEventsKept } from '../testing/append-until-killed-runner.js';
import { openSqliteSessionStore } from './sqlite-session-store.js';

describe('SqliteSessionStore after a writer is killed with SIGKILL', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'skillbox-sqlite-crash-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('keeps every acknowledged event, never half a batch, and opens cleanly', async () => {
    const path = join(folder, 'sessions.db');
    const key = { userId: 'crash-user', sessionId: 'crash-session' };
    const setup = await openSqliteSessionStore({ path });
    await setup.createSession(key);
    await setup.close();

    const acknowledged = await appendUntilKilled(['sqlite', path], 60);
    expect(acknowledged.length).toBeGreaterThanOrEqual(60);

    const store = await openSqliteSessionStore({ path });
    try {
      expect(await store.checkIntegrity()).toEqual(['ok']);
      await expectAcknowledgedEventsKept(store, key, acknowledged);
      const { version } = (await store.getSession(key, { limit: 0 }))!;
      await store.appendEvents(key, [{ author: 'user', type: 'message' }], { expectedVersion: version });
    } finally {
      await store.close();
    }
  });
});
