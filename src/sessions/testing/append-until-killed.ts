// Child process of the crash tests: appends batches of three events to one session for ever,
// printing each acknowledged version on its own line, until the parent kills it with SIGKILL.
// Usage: node --import tsx append-until-killed.ts sqlite <file> | postgres <url> <schema>
import type { SessionStore } from '../session-store.js';

const [driver, location, schema] = process.argv.slice(2);
const key = { userId: 'crash-user', sessionId: 'crash-session' };

async function openStore(): Promise<SessionStore> {
  if (driver === 'sqlite' && location !== undefined) {
    const { openSqliteSessionStore } = await import('../sqlite/sqlite-session-store.js');
    return openSqliteSessionStore({ path: location });
  }
  if (driver === 'postgres' && location !== undefined && schema !== undefined) {
    const { openPostgresSessionStore } = await import('../postgres/postgres-session-store.js');
    return openPostgresSessionStore({ connectionString: location, schema });
  }
  throw new Error(
    `usage: append-until-killed.ts sqlite <file> | postgres <url> <schema>; got ${process.argv.slice(2).join(' ')}`,
  );
}

const store = await openStore();
let version = (await store.getSession(key, { limit: 0 }))?.version;
if (version === undefined) throw new Error('the parent creates the session before starting this writer');
for (;;) {
  const batch = [0, 1, 2].map((offset) => ({
    author: 'crash-writer',
    type: 'message',
    content: { role: 'user', content: `event ${version! + offset + 1}` },
    stateDelta: { last: String(version! + offset + 1) },
  }));
  ({ version } = await store.appendEvents(key, batch, { expectedVersion: version }));
  process.stdout.write(`${version}\n`);
}
