import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { OptionProblems } from '../../config/option-problems.js';
import { type KnownSession, KnownSessionStates } from '../known-session-states.js';
import {
  SessionConflictError,
  SessionExistsError,
  SessionNotFoundError,
  SessionStoreClosedError,
  SessionStoreSchemaError,
} from '../session-errors.js';
import {
  applyStateDelta,
  checkAppName,
  checkExpectedVersion,
  checkGetOptions,
  checkId,
  checkInitialState,
  type NormalizedSessionKey,
  normalizeKey,
  type PreparedEvent,
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
import {
  openSqliteConnection,
  preloadSqliteDriver,
  type SqliteConnection,
  type SqliteDriverName,
  sqliteDriverNames,
} from './sqlite-connection.js';

/** Options of `openSqliteSessionStore`: the database file, its synchronous mode and busy timeout. */
export interface SqliteSessionStoreOptions {
  /** The database file (created when missing; its folder must exist), or `":memory:"`. */
  path: string;
  /**
   * `"full"` (default) syncs the WAL on every commit, so an acknowledged append survives power
   * loss; `"normal"` survives a crashed process but may lose the last commits on power loss, and
   * appends several times faster.
   */
  synchronous?: 'full' | 'normal';
  /** How long a writer waits for another process's write lock before failing; default 5000 ms. */
  busyTimeoutMs?: number;
  /**
   * The SQLite driver. `auto` (default): `bun:sqlite` on Bun, `node:sqlite` on Deno, and on Node
   * better-sqlite3 where it is installed, else the built-in `node:sqlite` (Node 22.13+). The file is
   * the same whichever driver wrote it.
   */
  driver?: SqliteDriverName | 'auto';
}

/** Bumped when the tables change; a file written by a newer skillbox is refused, not guessed at. */
export const sqliteSchemaVersion = 1;

/**
 * Sessions in one SQLite file (WAL mode), the embedded default, on whichever SQLite driver the
 * runtime has (see `driver`). The drivers are synchronous; each call runs one short transaction and
 * returns a settled promise. Appends take the write lock first (`BEGIN IMMEDIATE`), so the version
 * check and the write see the same data even with several processes on one file.
 */
export class SqliteSessionStore implements SessionStore {
  readonly path: string;
  /** The driver the file was opened with. */
  readonly driver: SqliteDriverName;
  readonly #database: SqliteConnection;
  readonly #statements;
  readonly #known = new KnownSessionStates();
  /** Kept here rather than asked of the driver, which not every driver can answer. */
  #closed = false;

  private constructor(path: string, database: SqliteConnection) {
    this.path = path;
    this.driver = database.driver;
    this.#database = database;
    this.#statements = {
      insertSession: database.prepare(
        'INSERT OR IGNORE INTO sessions (app_name, user_id, session_id, version, state, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?, ?)',
      ),
      selectSession: database.prepare<SqlSessionRow>(
        'SELECT * FROM sessions WHERE app_name = ? AND user_id = ? AND session_id = ?',
      ),
      selectEvents: database.prepare<{ event: string }>(
        'SELECT event FROM session_events WHERE session = ? AND version > ? ORDER BY version DESC LIMIT ?',
      ),
      insertEvent: database.prepare('INSERT INTO session_events (session, version, event) VALUES (?, ?, ?)'),
      updateSession: database.prepare('UPDATE sessions SET version = ?, state = ?, updated_at = ? WHERE id = ?'),
      // A rowid is reused after a delete (another user's new session may take it), so the row must
      // still carry this session's key; and a session deleted and made again under the same key may
      // sit in the same slot, so the known state is compared too: if it is still what is stored, at
      // the same version, merging onto it is what a fresh read would do.
      updateKnownSession: database.prepare(
        'UPDATE sessions SET version = ?, state = ?, updated_at = ? WHERE id = ? AND version = ? AND state = ? AND app_name = ? AND user_id = ? AND session_id = ?',
      ),
      listSessions: database.prepare<SqlSessionRow>(
        'SELECT * FROM sessions WHERE app_name = ? AND user_id = ? ORDER BY updated_at DESC, session_id ASC',
      ),
      deleteEvents: database.prepare('DELETE FROM session_events WHERE session = ?'),
      deleteSession: database.prepare('DELETE FROM sessions WHERE id = ?'),
      integrityCheck: database.prepare<{ integrity_check: string }>('PRAGMA integrity_check'),
    };
  }

  #append(
    normalized: NormalizedSessionKey,
    expectedVersion: number,
    prepared: PreparedEvent[],
    known: KnownSession | undefined,
  ): KnownSession {
    const statements = this.#statements;
    const version = expectedVersion + prepared.length;
    if (known !== undefined && known.version === expectedVersion) {
      const state = { ...known.state };
      for (const { event } of prepared) applyStateDelta(state, event.stateDelta);
      const stateText = JSON.stringify(state);
      if (
        statements.updateKnownSession.run(
          version,
          stateText,
          Date.now(),
          known.id,
          expectedVersion,
          known.stateText,
          normalized.appName,
          normalized.userId,
          normalized.sessionId,
        ).changes === 1
      ) {
        for (const { event, json } of prepared) statements.insertEvent.run(known.id, event.version, json);
        return { id: known.id, version, state, stateText };
      }
    }
    const row = statements.selectSession.get(normalized.appName, normalized.userId, normalized.sessionId);
    if (row === undefined) throw new SessionNotFoundError(normalized);
    if (row.version !== expectedVersion) throw new SessionConflictError(normalized, expectedVersion, row.version);
    const state = JSON.parse(row.state) as Record<string, string>;
    for (const { event, json } of prepared) {
      statements.insertEvent.run(row.id, event.version, json);
      applyStateDelta(state, event.stateDelta);
    }
    const stateText = JSON.stringify(state);
    statements.updateSession.run(version, stateText, Date.now(), row.id);
    return { id: row.id, version, state, stateText };
  }

  /** The row and its events from one snapshot. */
  #read(normalized: NormalizedSessionKey, afterVersion: number, limit: number): Session | undefined {
    const statements = this.#statements;
    const row = statements.selectSession.get(normalized.appName, normalized.userId, normalized.sessionId);
    if (row === undefined) return undefined;
    const rows = statements.selectEvents.all(row.id, afterVersion, limit);
    // Newest first from the index; parsed into place oldest first, without a reversed copy.
    const events = new Array<SessionEvent>(rows.length);
    for (let index = 0; index < rows.length; index += 1)
      events[rows.length - 1 - index] = JSON.parse(rows[index]!.event) as SessionEvent;
    const state = JSON.parse(row.state) as Record<string, string>;
    this.#known.remember(KnownSessionStates.keyOf(normalized), {
      id: row.id,
      version: row.version,
      state: { ...state },
      stateText: row.state,
    });
    return sessionOfSqlRow(row, state, events);
  }

  /** Opens (creating when needed) the file and its tables. */
  static open(options: SqliteSessionStoreOptions): SqliteSessionStore {
    const { path, synchronous, busyTimeoutMs, driver } = checkOptions(options);
    let database: SqliteConnection;
    try {
      database = openSqliteConnection(path, driver);
    } catch (error) {
      if (error instanceof SessionStoreSchemaError) throw error;
      throw new SessionStoreSchemaError(`cannot open the SQLite session store "${path}": ${(error as Error).message}`, {
        cause: error,
      });
    }
    try {
      database.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
      database.exec('PRAGMA journal_mode = WAL');
      database.exec(`PRAGMA synchronous = ${synchronous}`);
      migrate(database, path);
      return new SqliteSessionStore(path, database);
    } catch (error) {
      database.close();
      if (error instanceof SessionStoreSchemaError) throw error;
      throw new SessionStoreSchemaError(`cannot use the SQLite session store "${path}": ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  async createSession(key: SessionKey, options?: CreateSessionOptions): Promise<Session> {
    this.#open();
    const normalized = normalizeKey(key);
    const state = checkInitialState(options?.state);
    const now = Date.now();
    const stateText = JSON.stringify(state);
    const inserted = this.#statements.insertSession.run(
      normalized.appName,
      normalized.userId,
      normalized.sessionId,
      stateText,
      now,
      now,
    );
    if (inserted.changes === 0) throw new SessionExistsError(normalized);
    this.#known.remember(KnownSessionStates.keyOf(normalized), {
      id: Number(inserted.lastInsertRowid),
      version: 0,
      state: { ...state },
      stateText,
    });
    return sessionOfParts(normalized, 0, now, now, state, []);
  }

  async getSession(key: SessionKey, options?: GetSessionOptions): Promise<Session | undefined> {
    this.#open();
    const normalized = normalizeKey(key);
    const { afterVersion, limit } = checkGetOptions(options);
    // One snapshot: a deferred transaction, so a reader never waits for the write lock.
    return this.#database.deferred(() => this.#read(normalized, afterVersion, limit ?? -1));
  }

  async appendEvents(
    key: SessionKey,
    events: NewSessionEvent[],
    options: AppendEventsOptions,
  ): Promise<AppendEventsResult> {
    this.#open();
    const normalized = normalizeKey(key);
    const expectedVersion = checkExpectedVersion(options?.expectedVersion);
    const prepared = prepareEvents(events, expectedVersion);
    const knownKey = KnownSessionStates.keyOf(normalized);
    const known = this.#known.get(knownKey);
    const version = expectedVersion + prepared.length;
    try {
      this.#known.remember(
        knownKey,
        this.#database.immediate(() => this.#append(normalized, expectedVersion, prepared, known)),
      );
    } catch (error) {
      this.#known.forget(knownKey);
      throw error;
    }
    return { version, events: prepared.map(({ event }) => event) };
  }

  async listSessions(userId: string, options?: ListSessionsOptions): Promise<SessionSummary[]> {
    this.#open();
    checkId(userId, 'userId');
    const appName = checkAppName(options?.appName);
    return this.#statements.listSessions.all(appName, userId).map(summaryOfSqlRow);
  }

  async deleteSession(key: SessionKey): Promise<boolean> {
    const database = this.#open();
    const normalized = normalizeKey(key);
    this.#known.forget(KnownSessionStates.keyOf(normalized));
    return database.immediate(() => {
      const row = this.#statements.selectSession.get(normalized.appName, normalized.userId, normalized.sessionId);
      if (row === undefined) return false;
      this.#statements.deleteEvents.run(row.id);
      this.#statements.deleteSession.run(row.id);
      return true;
    });
  }

  /** Runs SQLite's integrity check; resolves to `["ok"]` for a sound file, else the problems found. */
  async checkIntegrity(): Promise<string[]> {
    this.#open();
    return this.#statements.integrityCheck.all().map((row) => row.integrity_check);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#database.close();
    this.#closed = true;
  }

  #open(): SqliteConnection {
    if (this.#closed) throw new SessionStoreClosedError(`SqliteSessionStore "${this.path}"`);
    return this.#database;
  }
}

/** Opens a SQLite session store, creating or migrating its tables. */
export async function openSqliteSessionStore(options: SqliteSessionStoreOptions): Promise<SqliteSessionStore> {
  await preloadSqliteDriver(checkOptions(options).driver);
  return SqliteSessionStore.open(options);
}

function checkOptions(options: SqliteSessionStoreOptions): Required<SqliteSessionStoreOptions> {
  // Plain checks, not a zod schema: the database stores load no third-party module but their driver.
  const problems = new OptionProblems('openSqliteSessionStore');
  if (typeof options !== 'object' || options === null) {
    problems.add('options', 'must be an object { path, synchronous?, busyTimeoutMs? }');
    problems.throwIfAny();
  }
  const { path } = options;
  if (typeof path !== 'string' || path.trim() === '')
    problems.add('path', 'must be the database file path (or ":memory:")');
  else if (path !== ':memory:') {
    const folder = dirname(resolve(path));
    if (!existsSync(folder) || !statSync(folder).isDirectory())
      problems.add('path', `is in folder "${folder}", which does not exist; create it first`);
    else if (existsSync(path) && statSync(path).isDirectory())
      problems.add('path', `"${path}" is a directory, not a database file`);
  }
  const synchronous = options.synchronous ?? 'full';
  if (synchronous !== 'full' && synchronous !== 'normal')
    problems.add('synchronous', `must be "full" or "normal"; got ${JSON.stringify(synchronous)}`);
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0)
    problems.add('busyTimeoutMs', `must be a non-negative integer; got ${JSON.stringify(busyTimeoutMs)}`);
  const driver = options.driver ?? 'auto';
  if (driver !== 'auto' && !sqliteDriverNames.includes(driver))
    problems.add(
      'driver',
      `must be "auto", ${sqliteDriverNames.map((name) => `"${name}"`).join(', ')}; got ${JSON.stringify(driver)}`,
    );
  problems.throwIfAny();
  return { path, synchronous, busyTimeoutMs, driver };
}

function migrate(database: SqliteConnection, path: string): void {
  database.immediate(() => {
    const found = database.prepare<{ user_version: number }>('PRAGMA user_version').get()?.user_version ?? 0;
    if (found > sqliteSchemaVersion) {
      throw new SessionStoreSchemaError(
        `"${path}" has session schema version ${found}; this skillbox knows up to ${sqliteSchemaVersion}: upgrade skillbox`,
      );
    }
    if (found === sqliteSchemaVersion) return;
    database.exec(`
      CREATE TABLE sessions (
        id INTEGER PRIMARY KEY,
        app_name TEXT NOT NULL,
        user_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        state TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (app_name, user_id, session_id)
      );
      CREATE INDEX sessions_by_user ON sessions (app_name, user_id, updated_at);
      CREATE TABLE session_events (
        session INTEGER NOT NULL,
        version INTEGER NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (session, version)
      ) WITHOUT ROWID;
      PRAGMA user_version = ${sqliteSchemaVersion};
    `);
  });
}
