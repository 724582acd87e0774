import type pg from 'pg';
import type { OptionProblems } from '../../config/option-problems.js';
import { checkPostgresPoolOptions, openPostgresPool } from '../../sessions/postgres/postgres-pool-option.js';

/** How a custody component reaches PostgreSQL: a pool the caller owns, or a connection string. */
export interface PostgresConnectionOptions {
  /** A pool the caller owns (and ends); or give `connectionString` and the component owns its pool. */
  pool?: pg.Pool;
  /** `postgres://user:password@host:port/database`. */
  connectionString?: string;
  /** Put before every table name, so several deployments (or tests) share a database; default `"skillbox_"`. */
  tablePrefix?: string;
}

const tablePrefixPattern = /^[a-z_][a-z0-9_]{0,39}$/;

/**
 * Checks the connection options into `problems` (which may already hold the caller's own), throws
 * them all, and returns the pool to use.
 */
export function connectionOf(
  options: PostgresConnectionOptions,
  problems: OptionProblems,
): { pool: pg.Pool; ownsPool: boolean; tablePrefix: string } {
  const tablePrefix = options.tablePrefix ?? 'skillbox_';
  if (typeof tablePrefix !== 'string' || !tablePrefixPattern.test(tablePrefix))
    problems.add(
      'tablePrefix',
      `must be a lower-case identifier start (letters, digits, _; at most 40); got ${JSON.stringify(tablePrefix)}`,
    );
  checkPostgresPoolOptions(options, problems);
  problems.throwIfAny();
  return { ...openPostgresPool(options, 4), tablePrefix };
}

/**
 * Runs `statements` in one transaction under an advisory lock, so workers opening at the same time do
 * not race each other's `CREATE TABLE IF NOT EXISTS` (which can fail on the catalog's unique index).
 */
export async function createTablesOnce(pool: pg.Pool, lockName: string, statements: readonly string[]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockName]);
    for (const statement of statements) await client.query(statement);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
