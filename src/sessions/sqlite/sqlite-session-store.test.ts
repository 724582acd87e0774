import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../../config/config-error.js';
import { SessionStoreSchemaError } from '../session-errors.js';
import { describeSessionStoreConformance } from '../testing/session-store-conformance.js';
import { availableSqliteDriver, sqliteDriverLoads } from './sqlite-connection.js';
import { openSqliteSessionStore, sqliteSchemaVersion } from './sqlite-session-store.js';

describeSessionStoreConformance(
  'sqlite',
  async () => {
    const folder = await mkdtemp(join(tmpdir(), 'skillbox-sqlite-sessions-'));
    return {
      open: () => openSqliteSessionStore({ path: join(folder, 'sessions.db') }),
      destroy: () => rm(folder, { recursive: true, force: true }),
    };
  },
  { durable: true },
);

// Every SQLite driver this runtime has runs the same suite: node:sqlite (Node 22.13+, Deno) and
// bun:sqlite (Bun) besides better-sqlite3. The CI matrix runs this file on Node 22 and 24, and
// .ci/other-runtimes.sh under Bun and Deno.
for (const driver of ['node:sqlite', 'bun:sqlite'] as const) {
  const available = sqliteDriverLoads(driver);
  if (!available) {
    describe.skip(`${driver} session store conformance (${driver} does not load on this runtime)`, () => {});
    continue;
  }
  describeSessionStoreConformance(
    `sqlite on ${driver}`,
    async () => {
      const folder = await mkdtemp(join(tmpdir(), 'skillbox-sqlite-sessions-'));
      return {
        open: () => openSqliteSessionStore({ path: join(folder, 'sessions.db'), driver }),
        destroy: () => rm(folder, { recursive: true, force: true }),
      };
    },
    { durable: true },
  );
}

describe('SqliteSessionStore specifics', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'skillbox-sqlite-sessions-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('picks the driver this runtime has, and names what to install when a driver cannot load', async () => {
    const store = await openSqliteSessionStore({ path: join(folder, 'auto.db') });
    expect(store.driver).toBe(availableSqliteDriver());
    expect(store.driver).toBe(typeof process.versions.bun === 'string' ? 'bun:sqlite' : 'better-sqlite3');
    await store.close();
    // A driver of another runtime: the error says which driver failed and how to get one.
    const foreign = typeof process.versions.bun === 'string' ? 'better-sqlite3' : 'bun:sqlite';
    const error = await openSqliteSessionStore({ path: join(folder, 'foreign.db'), driver: foreign }).catch(
      (caught: unknown) => caught as Error,
    );
    expect(error).toBeInstanceOf(SessionStoreSchemaError);
    expect((error as Error).message).toContain(`no SQLite driver can be loaded on`);
    expect((error as Error).message).toContain(`${foreign}: `);
    expect((error as Error).message).toContain('npm install better-sqlite3');
    await expect(openSqliteSessionStore({ path: join(folder, 'x.db'), driver: 'sqlite3' as never })).rejects.toThrow(
      'openSqliteSessionStore: option "driver" must be "auto", "better-sqlite3", "node:sqlite", "bun:sqlite"; got "sqlite3"',
    );
  });

  it('opens in WAL mode with the schema version recorded, and passes the integrity check', async () => {
    const path = join(folder, 'sessions.db');
    const store = await openSqliteSessionStore({ path, synchronous: 'normal' });
    expect(await store.checkIntegrity()).toEqual(['ok']);
    await store.close();
    const raw = new Database(path, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(raw.pragma('user_version', { simple: true })).toBe(sqliteSchemaVersion);
    raw.close();
  });

  it('refuses bad options, naming the option', async () => {
    await expect(openSqliteSessionStore({ path: '' })).rejects.toMatchObject({
      name: 'SkillboxConfigError',
      code: 'CONFIG_INVALID',
      component: 'openSqliteSessionStore',
      option: 'path',
    });
    await expect(openSqliteSessionStore({ path: join(folder, 'missing', 'sessions.db') })).rejects.toMatchObject({
      option: 'path',
    });
    await expect(openSqliteSessionStore({ path: folder })).rejects.toMatchObject({ option: 'path' });
    await expect(
      openSqliteSessionStore({ path: join(folder, 'a.db'), synchronous: 'off' as 'full' }),
    ).rejects.toMatchObject({ option: 'synchronous' });
    await expect(openSqliteSessionStore({ path: join(folder, 'a.db'), busyTimeoutMs: -1 })).rejects.toBeInstanceOf(
      SkillboxConfigError,
    );
    await expect(
      openSqliteSessionStore({ path: join(folder, 'a.db'), synchronous: 'off' as 'full', busyTimeoutMs: 1.5 }),
    ).rejects.toThrow(
      'openSqliteSessionStore: 2 invalid options:\n' +
        '  - "synchronous" must be "full" or "normal"; got "off"\n' +
        '  - "busyTimeoutMs" must be a non-negative integer; got 1.5',
    );
  });

  it('refuses a file written by a newer schema and leaves it untouched', async () => {
    const path = join(folder, 'future.db');
    const raw = new Database(path);
    raw.pragma(`user_version = ${sqliteSchemaVersion + 1}`);
    raw.close();
    await expect(openSqliteSessionStore({ path })).rejects.toBeInstanceOf(SessionStoreSchemaError);
    const again = new Database(path, { readonly: true });
    expect(again.pragma('user_version', { simple: true })).toBe(sqliteSchemaVersion + 1);
    again.close();
  });

  it('refuses a file that is not a database', async () => {
    const path = join(folder, 'not-a-database.db');
    await writeFile(path, 'hello, this is text and not SQLite '.repeat(200));
    await expect(openSqliteSessionStore({ path })).rejects.toBeInstanceOf(SessionStoreSchemaError);
  });
});
