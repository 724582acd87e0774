import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendUntilKilled } from '../testing/append-until-killed-runner.js';
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
      const session = await store.getSession(key);
      const last = acknowledged.at(-1)!;
      // The writer may have committed one more batch between its last line and the kill.
      expect(session!.version === last || session!.version === last + 3).toBe(true);
      expect(session!.events.map((event) => event.version)).toEqual(Array.from({ length: session!.version }, (_, index) => index + 1));
      for (const event of session!.events) expect(event.content).toEqual({ role: 'user', content: `event ${event.version}` });
      expect(session!.state).toEqual({ last: String(session!.version) });
      await store.appendEvents(key, [{ author: 'user', type: 'message' }], { expectedVersion: session!.version });
    } finally {
      await store.close();
    }
  });
});
