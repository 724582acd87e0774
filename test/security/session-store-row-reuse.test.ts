import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionNotFoundError } from '../../src/sessions/session-errors.js';
import { openSqliteSessionStore } from '../../src/sessions/sqlite/sqlite-session-store.js';

const run = promisify(execFile);
const storeModule = resolve(import.meta.dirname, '../../src/sessions/sqlite/sqlite-session-store.ts');

/** Another process on the same file: deletes Alice's session and creates Bob's, as a second server would. */
async function otherProcess(path: string): Promise<void> {
  const script = `
    const { openSqliteSessionStore } = await import(${JSON.stringify(storeModule)});
    const store = await openSqliteSessionStore({ path: ${JSON.stringify(path)} });
    if (!(await store.deleteSession({ userId: 'alice', sessionId: 'chat' }))) throw new Error('no session of alice');
    await store.createSession({ userId: 'bob', sessionId: 'chat' });
    await store.close();
  `;
  await run(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script]);
}

describe('SQLite session store: a row slot reused by another user', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'skillbox-row-reuse-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("refuses Alice's stale append instead of writing her turn into Bob's session", async () => {
    const path = join(folder, 'sessions.db');
    const alicesServer = await openSqliteSessionStore({ path });
    try {
      await alicesServer.createSession({ userId: 'alice', sessionId: 'chat' });
      await otherProcess(path);
      const error = await alicesServer
        .appendEvents(
          { userId: 'alice', sessionId: 'chat' },
          [{ author: 'user', type: 'message', content: 'my card number is 4111', stateDelta: { owner: 'alice' } }],
          { expectedVersion: 0 },
        )
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SessionNotFoundError);
      const bobs = await alicesServer.getSession({ userId: 'bob', sessionId: 'chat' });
      expect(bobs).toMatchObject({ version: 0, state: {}, events: [] });
    } finally {
      await alicesServer.close();
    }
  });
});
