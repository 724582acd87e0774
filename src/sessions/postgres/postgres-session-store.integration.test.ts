import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postgresReachable, postgresUrl } from '../../../test/support/services.js';
import { SessionStoreSchemaError, SessionStoreUnavailableError } from '../session-errors.js';
import { appendUntilKilled, expectAcknowledgedEventsKept } from '../testing/append-until-killed-runner.js';
import { describeSessionStoreConformance } from '../testing/session-store-conformance.js';
import { openPostgresSessionStore, postgresSchemaVersion } from './postgres-session-store.js';

// Skipped when the server is down, with one line from the global setup; under CI=true the run fails
// instead, so a broken CI service cannot pass silently (test/support/services.ts).
const connectionString = postgresUrl;

function uniqueSchema(): string {
  return `skillbox_test_${process.pid}_${randomBytes(4).toString('hex')}`;
}

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

describe.runIf(postgresReachable)('PostgreSQL session store', () => {
  describeSessionStoreConformance(
    'postgres',
    async () => {
      const schema = uniqueSchema();
      return { open: () => openPostgresSessionStore({ connectionString, schema }), destroy: () => dropSchema(schema) };
    },
    { durable: true },
  );

  describe('PostgresSessionStore specifics', () => {
    let schema: string;
    beforeEach(() => {
      schema = uniqueSchema();
    });
    afterEach(async () => {
      await dropSchema(schema);
    });

    it('works on a pool the caller owns and leaves it open on close', async () => {
      const pool = new pg.Pool({ connectionString });
      try {
        const store = await openPostgresSessionStore({ pool, schema });
        await store.createSession({ userId: 'u', sessionId: 's' });
        await store.close();
        const rows = await pool.query(`SELECT session_id FROM "${schema}".skillbox_sessions`);
        expect(rows.rows).toEqual([{ session_id: 's' }]);
      } finally {
        await pool.end();
      }
    });

    it('refuses bad options, naming the option', async () => {
      await expect(openPostgresSessionStore({})).rejects.toMatchObject({
        name: 'SkillboxConfigError',
        component: 'openPostgresSessionStore',
        option: 'connectionString',
      });
      // A connection string usually holds a password: the error must not repeat it.
      await expect(openPostgresSessionStore({ connectionString: 'mysql://user:hunter2@x' })).rejects.toMatchObject({
        option: 'connectionString',
        message: expect.not.stringContaining('hunter2'),
      });
      await expect(
        openPostgresSessionStore({ connectionString, schema: 'Robert"); DROP TABLE x;--' }),
      ).rejects.toMatchObject({ option: 'schema' });
      await expect(openPostgresSessionStore({ pool: {} as pg.Pool })).rejects.toMatchObject({ option: 'pool' });
    });

    it('refuses a schema written by a newer version and leaves it untouched', async () => {
      const client = new pg.Client({ connectionString });
      await client.connect();
      try {
        await client.query(`CREATE SCHEMA "${schema}"`);
        await client.query(`CREATE TABLE "${schema}".skillbox_meta (name text PRIMARY KEY, value text NOT NULL)`);
        await client.query(
          `INSERT INTO "${schema}".skillbox_meta VALUES ('sessions_schema_version', '${postgresSchemaVersion + 1}')`,
        );
        await expect(openPostgresSessionStore({ connectionString, schema })).rejects.toBeInstanceOf(
          SessionStoreSchemaError,
        );
        const tables = await client.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1`, [
          schema,
        ]);
        expect(tables.rows).toEqual([{ table_name: 'skillbox_meta' }]);
      } finally {
        await client.end();
      }
    });

    it('fails clearly when the server cannot be reached', async () => {
      await expect(
        openPostgresSessionStore({ connectionString: 'postgres://skillbox:skillbox@127.0.0.1:1/none', schema }),
      ).rejects.toBeInstanceOf(SessionStoreUnavailableError);
    });

    it('keeps every acknowledged event after the writer is killed with SIGKILL', async () => {
      const key = { userId: 'crash-user', sessionId: 'crash-session' };
      const setup = await openPostgresSessionStore({ connectionString, schema });
      await setup.createSession(key);
      await setup.close();
      const acknowledged = await appendUntilKilled(['postgres', connectionString, schema], 30);
      const store = await openPostgresSessionStore({ connectionString, schema });
      try {
        expect(acknowledged.length).toBeGreaterThanOrEqual(30);
        await expectAcknowledgedEventsKept(store, key, acknowledged);
      } finally {
        await store.close();
      }
    });
  });
});
