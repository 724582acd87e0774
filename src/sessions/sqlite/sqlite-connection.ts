import { createRequire } from 'node:module';
import { SessionStoreSchemaError } from '../session-errors.js';

/*
 * The one surface the SQLite session store needs from a driver, so the same store runs on Node with
 * the better-sqlite3 addon, on Node 22.13+ and Deno with the built-in `node:sqlite`, and on Bun with
 * `bun:sqlite`. All three are synchronous and have prepared statements with run/get/all; they differ
 * in transactions (only better-sqlite3 and Bun wrap them), in what a missing row is (undefined or
 * null) and in how they are loaded, which is all this file deals with.
 */

/** A SQLite driver the session store can use. */
export type SqliteDriverName = 'better-sqlite3' | 'node:sqlite' | 'bun:sqlite';

/** The drivers `driver: 'auto'` tries, in order, on this runtime. */
export const sqliteDriverNames: readonly SqliteDriverName[] = ['better-sqlite3', 'node:sqlite', 'bun:sqlite'];

/** One prepared statement; `get` answers undefined for no row whatever the driver says. */
export interface SqliteStatement<Row> {
  run(...parameters: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...parameters: unknown[]): Row | undefined;
  all(...parameters: unknown[]): Row[];
}

/** An open database. */
export interface SqliteConnection {
  readonly driver: SqliteDriverName;
  prepare<Row = unknown>(sql: string): SqliteStatement<Row>;
  exec(sql: string): void;
  /** Runs `work` in a `BEGIN IMMEDIATE` transaction: committed when it returns, rolled back when it throws. */
  immediate<Result>(work: () => Result): Result;
  /** The same in a deferred transaction (`BEGIN`): reads from one snapshot without taking the write lock. */
  deferred<Result>(work: () => Result): Result;
  close(): void;
}

interface DriverStatement {
  run(...parameters: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...parameters: unknown[]): unknown;
  all(...parameters: unknown[]): unknown[];
}

interface DriverDatabase {
  prepare(sql: string): DriverStatement;
  exec(sql: string): unknown;
  close(): void;
}

type DatabaseConstructor = new (path: string) => DriverDatabase;

// createRequire, not `import`: the store's module must load whichever driver exists (and none of the
// others) synchronously, because `SqliteSessionStore.open` is synchronous.
const load = createRequire(import.meta.url);

function isBun(): boolean {
  return typeof (process.versions as Record<string, string | undefined>).bun === 'string';
}

function isDeno(): boolean {
  return typeof (globalThis as { Deno?: unknown }).Deno === 'object';
}

/** The drivers worth trying here, in order: the runtime's own first where better-sqlite3 cannot load. */
function driversToTry(): SqliteDriverName[] {
  if (isBun()) return ['bun:sqlite'];
  if (isDeno()) return ['node:sqlite'];
  return ['better-sqlite3', 'node:sqlite'];
}

function constructorOf(driver: SqliteDriverName): DatabaseConstructor {
  if (driver === 'better-sqlite3') return load('better-sqlite3') as DatabaseConstructor;
  if (driver === 'node:sqlite') return (load('node:sqlite') as { DatabaseSync: DatabaseConstructor }).DatabaseSync;
  return (load('bun:sqlite') as { Database: DatabaseConstructor }).Database;
}

/** Whether `driver` can be loaded on this runtime (for tests and diagnostics). */
export function sqliteDriverLoads(driver: SqliteDriverName): boolean {
  try {
    constructorOf(driver);
    return true;
  } catch {
    return false;
  }
}

/** The driver `driver: 'auto'` would use on this runtime, or undefined when none loads. */
export function availableSqliteDriver(): SqliteDriverName | undefined {
  return driversToTry().find(sqliteDriverLoads);
}

/** Why no driver could be loaded, and what to install, as one sentence. */
function noDriverMessage(tried: readonly { driver: SqliteDriverName; error: unknown }[]): string {
  const reasons = tried.map(({ driver, error }) => `${driver}: ${(error as Error).message.split('\n')[0]}`).join('; ');
  const runtime = isBun() ? 'Bun' : isDeno() ? 'Deno' : `Node ${process.versions.node}`;
  return (
    `no SQLite driver can be loaded on ${runtime} (${reasons}). Install one: \`npm install better-sqlite3\` ` +
    '(Node), or use Node 22.13 or later, Deno or Bun, whose built-in SQLite (node:sqlite, bun:sqlite) needs no install'
  );
}

/**
 * better-sqlite3 as an ES module import, for the asynchronous open: an `import()` goes through the
 * loader's resolution (module hooks, a bundler's or test runner's aliases), where `require` does not,
 * so an application that maps better-sqlite3 to another build gets that build. Remembered for the
 * synchronous open. Undefined when it is not installed.
 */
let importedBetterSqlite: DatabaseConstructor | undefined;

/** Loads what `driver: 'auto'` or `driver` needs through `import()` before a synchronous open. */
export async function preloadSqliteDriver(driver: SqliteDriverName | 'auto'): Promise<void> {
  if (importedBetterSqlite !== undefined) return;
  if (driver !== 'better-sqlite3' && (driver !== 'auto' || !driversToTry().includes('better-sqlite3'))) return;
  try {
    importedBetterSqlite = (await import('better-sqlite3')).default as unknown as DatabaseConstructor;
  } catch {
    // Not installed: the synchronous open says so, or goes on to the next driver.
  }
}

/**
 * Opens `path` with `driver`, or with the first driver that works on this runtime (`auto`): Bun's
 * `bun:sqlite` on Bun, `node:sqlite` on Deno, and on Node better-sqlite3 where it is installed and
 * built for this Node, else the built-in `node:sqlite` (Node 22.13+).
 */
export function openSqliteConnection(path: string, driver: SqliteDriverName | 'auto'): SqliteConnection {
  const candidates = driver === 'auto' ? driversToTry() : [driver];
  const tried: { driver: SqliteDriverName; error: unknown }[] = [];
  for (const candidate of candidates) {
    let database: DriverDatabase;
    try {
      const Database =
        candidate === 'better-sqlite3' && importedBetterSqlite !== undefined
          ? importedBetterSqlite
          : constructorOf(candidate);
      database = new Database(path);
    } catch (error) {
      // A driver that loads but cannot open here (an addon built for another Node, a path it
      // refuses) leaves `auto` to the next one; the last error is the one reported.
      if (!isLoadFailure(error)) throw error;
      tried.push({ driver: candidate, error });
      continue;
    }
    return connectionOf(candidate, database);
  }
  throw new SessionStoreSchemaError(`cannot open the SQLite session store "${path}": ${noDriverMessage(tried)}`);
}

/** A driver that is missing, or a native addon that cannot be loaded into this process. */
function isLoadFailure(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return (
    code === 'MODULE_NOT_FOUND' ||
    code === 'ERR_MODULE_NOT_FOUND' ||
    code === 'ERR_DLOPEN_FAILED' ||
    code === 'ERR_UNKNOWN_BUILTIN_MODULE' ||
    /NODE_MODULE_VERSION|Could not locate the bindings file|not yet supported/i.test(String((error as Error)?.message))
  );
}

function connectionOf(driver: SqliteDriverName, database: DriverDatabase): SqliteConnection {
  const beginImmediate = database.prepare('BEGIN IMMEDIATE');
  const beginDeferred = database.prepare('BEGIN');
  const commit = database.prepare('COMMIT');
  const rollback = database.prepare('ROLLBACK');
  const inTransaction = <Result>(begin: DriverStatement, work: () => Result): Result => {
    begin.run();
    let result: Result;
    try {
      result = work();
    } catch (error) {
      rollback.run();
      throw error;
    }
    commit.run();
    return result;
  };
  return {
    driver,
    prepare<Row>(sql: string): SqliteStatement<Row> {
      const statement = database.prepare(sql);
      return {
        run: (...parameters) => {
          const result = statement.run(...parameters);
          return { changes: Number(result.changes), lastInsertRowid: result.lastInsertRowid };
        },
        get: (...parameters) => (statement.get(...parameters) ?? undefined) as Row | undefined,
        all: (...parameters) => statement.all(...parameters) as Row[],
      };
    },
    exec(sql) {
      database.exec(sql);
    },
    immediate: (work) => inTransaction(beginImmediate, work),
    deferred: (work) => inTransaction(beginDeferred, work),
    close() {
      database.close();
    },
  };
}
