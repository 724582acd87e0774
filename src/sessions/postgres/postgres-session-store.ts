import type pg from 'pg';
import { OptionProblems } from '../../config/option-problems.js';
import { KnownSessionStates } from '../known-session-states.js';
import {
  SessionConflictError,
  SessionExistsError,
  SessionNotFoundError,
  SessionStoreClosedError,
  SessionStoreSchemaError,
  SessionStoreUnavailableError,
} from '../session-errors.js';
import {
  applyStateDelta,
  checkAppName,
  checkExpectedVersion,
  checkGetOptions,
  checkId,
  checkInitialState,
  normalizeKey,
  prepareEvents,
} from '../session-input.js';
import { sessionOfParts } from '../session-of-parts.js';
import type {
  AppendEventsOptions,
  AppendEventsResult,
  CreateSessionOptions,
  GetSessionOptions,
  ListSessionsOptions,
  NewSessionEvent,
  Session,
  SessionEvent,
  SessionKey,
  SessionStore,
  SessionSummary,
} from '../session-store.js';
import type { SqlSessionRow } from '../sql-session-row.js';
import { sessionOfSqlRow, summaryOfSqlRow } from '../sql-session-row.js';
import { checkPostgresPoolOptions, openPostgresPool } from './postgres-pool-option.js';

/** Options of `openPostgresSessionStore`: a pool or a connection string, and the schema of its tables. */
export interface PostgresSessionStoreOptions {
  /** A pool the caller owns (and ends); or give `connectionString` and the store owns its pool. */
  pool?: pg.Pool;
  /** `postgres://user:password@host:port/database`. */
  connectionString?: string;
  /** Schema holding the `skillbox_*` tables, created when missing; default `"public"`. */
  schema?: string;
}

/** Bumped when the tables change; a schema written by a newer skillbox is refused, not guessed at. */
export const postgresSchemaVersion = 1;

const schemaName = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Sessions in PostgreSQL. An append to a session this store knows at the expected version (it
 * created, read or last appended to it) is one statement, one round trip: it updates the session
 * row only where id and version still match, and inserts the events only if that update happened.
 * Otherwise (another process wrote, or the session is unknown here) the append locks the session
 * row (`SELECT ... FOR UPDATE`), checks the version, inserts the events and writes the new state in
 * one transaction. The primary key (session, version) backs the check up. Every read is one
 * statement, so one snapshot.
 */
export class PostgresSessionStore implements SessionStore {
  readonly schema: string;
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #tables: { sessions: string; events: string };
  readonly #known = new KnownSessionStates();
  readonly #appendKnown: string;
  /** The same for one event (what a runner appends): plain parameters, no arrays to encode and unnest. */
  readonly #appendKnownOne: string;
  #closed = false;

  private constructor(pool: pg.Pool, ownsPool: boolean, schema: string) {
    this.#pool = pool;
    this.#ownsPool = ownsPool;
    this.schema = schema;
    this.#tables = { sessions: `"${schema}".skillbox_sessions`, events: `"${schema}".skillbox_session_events` };
    // bigserial ids are never reused, so a matching id and version mean the state is the one known.
    this.#appendKnown = `WITH updated AS (
        UPDATE ${this.#tables.sessions} SET version = $1, state = $2, updated_at = $3 WHERE id = $4 AND version = $5 RETURNING id
      )
      INSERT INTO ${this.#tables.events} (session, version, event) SELECT updated.id, t.version, t.event FROM updated, unnest($6::integer[], $7::text[]) AS t(version, event)`;
    this.#appendKnownOne = `WITH updated AS (
        UPDATE ${this.#tables.sessions} SET version = $1, state = $2, updated_at = $3 WHERE id = $4 AND version = $5 RETURNING id
      )
      INSERT INTO ${this.#tables.events} (session, version, event) SELECT updated.id, $1, $6 FROM updated`;
  }

  /** Connects, and creates the schema and tables when missing. */
  static async open(options: PostgresSessionStoreOptions): Promise<PostgresSessionStore> {
    const { pool, ownsPool, schema } = checkOptions(options);
    try {
      await migrate(pool, schema);
    } catch (error) {
      if (ownsPool) await pool.end();
      if (error instanceof SessionStoreSchemaError || error instanceof SessionStoreUnavailableError) throw error;
      throw new SessionStoreSchemaError(
        `cannot prepare the PostgreSQL session store in schema "${schema}": ${(error as Error).message}`,
        { cause: error },
      );
    }
    return new PostgresSessionStore(pool, ownsPool, schema);
  }

  async createSession(key: SessionKey, options?: CreateSessionOptions): Promise<Session> {
    this.#checkOpen();
    const normalized = normalizeKey(key);
    const state = checkInitialState(options?.state);
    const now = Date.now();
    const inserted = await this.#pool.query(
      `INSERT INTO ${this.#tables.sessions} (app_name, user_id, session_id, version, state, created_at, updated_at)
       VALUES ($1, $2, $3, 0, $4, $5, $5) ON CONFLICT DO NOTHING RETURNING id`,
      [normalized.appName, normalized.userId, normalized.sessionId, JSON.stringify(state), now],
    );
    if (inserted.rowCount === 0) throw new SessionExistsError(normalized);
    const id = (inserted.rows[0] as { id: string }).id;
    this.#known.remember(KnownSessionStates.keyOf(normalized), { id, version: 0, state: { ...state }, stateText: '' });
    return sessionOfParts(normalized, 0, now, now, state, []);
  }

  async getSession(key: SessionKey, options?: GetSessionOptions): Promise<Session | undefined> {
    this.#checkOpen();
    const normalized = normalizeKey(key);
    const { afterVersion, limit } = checkGetOptions(options);
    const result = await this.#pool.query<SqlSessionRow & { event: string | null }>(
      `SELECT s.*, e.event FROM ${this.#tables.sessions} s
       LEFT JOIN LATERAL (
         SELECT version, event FROM ${this.#tables.events}
         WHERE session = s.id AND version > $4 ORDER BY version DESC LIMIT $5
       ) e ON true
       WHERE s.app_name = $1 AND s.user_id = $2 AND s.session_id = $3
       ORDER BY e.version ASC`,
      [normalized.appName, normalized.userId, normalized.sessionId, afterVersion, limit ?? null],
    );
    const first = result.rows[0];
    if (first === undefined) return undefined;
    // A loop, not flatMap: that made an array for every row to spread out again.
    const events: SessionEvent[] = [];
    for (const { event } of result.rows) if (event !== null) events.push(JSON.parse(event) as SessionEvent);
    const state = JSON.parse(first.state) as Record<string, string>;
    this.#known.remember(KnownSessionStates.keyOf(normalized), {
      id: first.id,
      version: first.version,
      state: { ...state },
      stateText: '',
    });
    return sessionOfSqlRow(first, state, events);
  }

  async appendEvents(
    key: SessionKey,
    events: NewSessionEvent[],
    options: AppendEventsOptions,
  ): Promise<AppendEventsResult> {
    this.#checkOpen();
    const normalized = normalizeKey(key);
    const expectedVersion = checkExpectedVersion(options?.expectedVersion);
    const prepared = prepareEvents(events, expectedVersion);
    const knownKey = KnownSessionStates.keyOf(normalized);
    const known = this.#known.get(knownKey);
    const version = expectedVersion + prepared.length;
    if (known !== undefined && known.version === expectedVersion) {
      const state = { ...known.state };
      for (const { event } of prepared) applyStateDelta(state, event.stateDelta);
      const common = [version, JSON.stringify(state), Date.now(), known.id, expectedVersion];
      const inserted =
        prepared.length === 1
          ? await this.#pool.query(this.#appendKnownOne, [...common, prepared[0]!.json])
          : await this.#pool.query(this.#appendKnown, [
              ...common,
              prepared.map(({ event }) => event.version),
              prepared.map(({ json }) => json),
            ]);
      if (inserted.rowCount === prepared.length) {
        this.#known.remember(knownKey, { id: known.id, version, state, stateText: '' });
        return { version, events: prepared.map(({ event }) => event) };
      }
      // Nothing was written: another writer moved the session on, or removed it. The locked path says which.
    }
    const client = await this.#pool.connect();
    try {
      return await this.#appendLocked(client, normalized, knownKey, expectedVersion, prepared);
    } catch (error) {
      this.#known.forget(knownKey);
      throw error;
    }
  }

  async #appendLocked(
    client: pg.PoolClient,
    normalized: ReturnType<typeof normalizeKey>,
    knownKey: string,
    expectedVersion: number,
    prepared: ReturnType<typeof prepareEvents>,
  ): Promise<AppendEventsResult> {
    return inTransaction(client, async () => {
      const found = await client.query<Pick<SqlSessionRow, 'id' | 'version' | 'state'>>(
        `SELECT id, version, state FROM ${this.#tables.sessions} WHERE app_name = $1 AND user_id = $2 AND session_id = $3 FOR UPDATE`,
        [normalized.appName, normalized.userId, normalized.sessionId],
      );
      const row = found.rows[0];
      if (row === undefined) throw new SessionNotFoundError(normalized);
      if (row.version !== expectedVersion) throw new SessionConflictError(normalized, expectedVersion, row.version);
      const state = JSON.parse(row.state) as Record<string, string>;
      for (const { event } of prepared) applyStateDelta(state, event.stateDelta);
      await client.query(
        `INSERT INTO ${this.#tables.events} (session, version, event) SELECT $1, * FROM unnest($2::integer[], $3::text[])`,
        [row.id, prepared.map(({ event }) => event.version), prepared.map(({ json }) => json)],
      );
      const version = expectedVersion + prepared.length;
      await client.query(
        `UPDATE ${this.#tables.sessions} SET version = $1, state = $2, updated_at = $3 WHERE id = $4`,
        [version, JSON.stringify(state), Date.now(), row.id],
      );
      this.#known.remember(knownKey, { id: row.id, version, state, stateText: '' });
      return { version, events: prepared.map(({ event }) => event) };
    });
  }

  async listSessions(userId: string, options?: ListSessionsOptions): Promise<SessionSummary[]> {
    this.#checkOpen();
    checkId(userId, 'userId');
    const appName = checkAppName(options?.appName);
    const result = await this.#pool.query<SqlSessionRow>(
      `SELECT id, app_name, user_id, session_id, version, created_at, updated_at FROM ${this.#tables.sessions}
       WHERE app_name = $1 AND user_id = $2 ORDER BY updated_at DESC, session_id COLLATE "C" ASC`,
      [appName, userId],
    );
    return result.rows.map(summaryOfSqlRow);
  }

  async deleteSession(key: SessionKey): Promise<boolean> {
    this.#checkOpen();
    const normalized = normalizeKey(key);
    this.#known.forget(KnownSessionStates.keyOf(normalized));
    const deleted = await this.#pool.query(
      `DELETE FROM ${this.#tables.sessions} WHERE app_name = $1 AND user_id = $2 AND session_id = $3`,
      [normalized.appName, normalized.userId, normalized.sessionId],
    );
    return (deleted.rowCount ?? 0) > 0;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsPool) await this.#pool.end();
  }

  #checkOpen(): void {
    if (this.#closed) throw new SessionStoreClosedError(`PostgresSessionStore (schema "${this.schema}")`);
  }
}

/** Opens a PostgreSQL session store, creating or checking its tables. */
export function openPostgresSessionStore(options: PostgresSessionStoreOptions): Promise<PostgresSessionStore> {
  return PostgresSessionStore.open(options);
}

function checkOptions(options: PostgresSessionStoreOptions): { pool: pg.Pool; ownsPool: boolean; schema: string } {
  // Plain checks, not a zod schema: the database stores load no third-party module but their driver.
  const problems = new OptionProblems('openPostgresSessionStore');
  if (typeof options !== 'object' || options === null) {
    problems.add('options', 'must be an object { pool } or { connectionString }');
    problems.throwIfAny();
  }
  const schema = options.schema ?? 'public';
  if (typeof schema !== 'string' || !schemaName.test(schema))
    problems.add(
      'schema',
      `must be a lower-case identifier (letters, digits, _; at most 63); got ${JSON.stringify(schema)}`,
    );
  checkPostgresPoolOptions(options, problems);
  problems.throwIfAny();
  return { ...openPostgresPool(options), schema };
}

async function migrate(pool: pg.Pool, schema: string): Promise<void> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw new SessionStoreUnavailableError(
      `cannot connect to PostgreSQL for the session store: ${(error as Error).message}`,
      { cause: error },
    );
  }
  await inTransaction(client, async () => {
    // Concurrent first opens would race on CREATE TABLE IF NOT EXISTS; one lock per schema serialises them.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`skillbox_sessions:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS "${schema}".skillbox_meta (name text PRIMARY KEY, value text NOT NULL)`,
    );
    const found = await client.query<{ value: string }>(
      `SELECT value FROM "${schema}".skillbox_meta WHERE name = 'sessions_schema_version'`,
    );
    const version = found.rows[0] === undefined ? 0 : Number(found.rows[0].value);
    if (version > postgresSchemaVersion) {
      throw new SessionStoreSchemaError(
        `schema "${schema}" has session schema version ${version}; this skillbox knows up to ${postgresSchemaVersion}: upgrade skillbox`,
      );
    }
    if (version < postgresSchemaVersion) {
      await client.query(`
        CREATE TABLE "${schema}".skillbox_sessions (
          id bigserial PRIMARY KEY,
          app_name text NOT NULL,
          user_id text NOT NULL,
          session_id text NOT NULL,
          version integer NOT NULL,
          state text NOT NULL,
          created_at bigint NOT NULL,
          updated_at bigint NOT NULL,
          UNIQUE (app_name, user_id, session_id)
        );
        CREATE INDEX skillbox_sessions_by_user ON "${schema}".skillbox_sessions (app_name, user_id, updated_at DESC);
        CREATE TABLE "${schema}".skillbox_session_events (
          session bigint NOT NULL REFERENCES "${schema}".skillbox_sessions (id) ON DELETE CASCADE,
          version integer NOT NULL,
          event text NOT NULL,
          PRIMARY KEY (session, version)
        );
        INSERT INTO "${schema}".skillbox_meta (name, value) VALUES ('sessions_schema_version', '${postgresSchemaVersion}');
      `);
    }
  });
}

/** Runs `body` between BEGIN and COMMIT on a pooled client, rolls back on any error, and releases the client. */
async function inTransaction<T>(client: pg.PoolClient, body: () => Promise<T>): Promise<T> {
  try {
    await client.query('BEGIN');
    const result = await body();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
