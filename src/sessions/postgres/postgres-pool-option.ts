import pg from 'pg';
import type { OptionProblems } from '../../config/option-problems.js';

/** The PostgreSQL connection a component is given: a pool the caller owns, or a URL it opens itself. */
export interface PostgresPoolOptions {
  pool?: pg.Pool;
  connectionString?: string;
}

/**
 * Checks `pool` xor `connectionString` into `problems` (the URL itself is never shown: it usually
 * holds a password) and, once the caller's problems are clear, opens the pool. Shared by the
 * session store, the run ledger and workspace custody, which all take a connection the same way.
 */
export function checkPostgresPoolOptions(options: PostgresPoolOptions, problems: OptionProblems): void {
  if (options.pool !== undefined && options.connectionString !== undefined)
    problems.add('pool', 'and connectionString are both given; give one of them');
  else if (options.pool !== undefined) {
    if (!(options.pool instanceof pg.Pool)) problems.add('pool', 'must be a pg Pool');
  } else if (typeof options.connectionString !== 'string' || !/^postgres(ql)?:\/\//.test(options.connectionString))
    problems.add('connectionString', 'must be a postgres:// URL (or pass a pg Pool as pool)');
}

/** The pool to use, after `checkPostgresPoolOptions` passed: the caller's, or a new one this component owns. */
export function openPostgresPool(
  options: PostgresPoolOptions,
  poolSize?: number,
): { pool: pg.Pool; ownsPool: boolean } {
  if (options.pool !== undefined) return { pool: options.pool, ownsPool: false };
  return {
    pool: new pg.Pool({
      connectionString: options.connectionString,
      ...(poolSize === undefined ? {} : { max: poolSize }),
    }),
    ownsPool: true,
  };
}
