import type pg from 'pg';
import { SkillboxConfigError } from '../config/config-error.js';
import type { RuntimeResult } from '../runtime/runtime-types.js';
import { lostRunResult } from './lost-run-result.js';
import type { RunClaim, RunClaimAnswer, RunLedger } from './run-ledger.js';

/** Options of `openPostgresRunLedger`: a pool or a connection string, and the schema of its table. */
export interface PostgresRunLedgerOptions {
  /** A pool the caller owns (and ends); or give `connectionString` and the ledger owns its pool. */
  pool?: pg.Pool;
  /** `postgres://user:password@host:port/database`. */
  connectionString?: string;
  /** Schema holding `skillbox_worker_runs`, created when missing; default `"public"`. */
  schema?: string;
}

const schemaName = /^[a-z_][a-z0-9_]{0,62}$/;

interface RunRow {
  state: 'started' | 'finished';
  worker_id: string;
  attempt: number;
  result: RuntimeResult | null;
  alive: boolean;
}

/**
 * The run ledger in PostgreSQL, shared by every sandbox worker of a deployment: one row per run id
 * (`skillbox_worker_runs`). A claim is one transaction that inserts the row, or locks it
 * (`SELECT ... FOR UPDATE`) and decides from its state and lease, so two workers claiming one id at
 * once get one `run` between them. Leases are compared with the database's clock
 * (`clock_timestamp()`), never a worker's. `pg` is loaded here, only when a ledger is opened.
 */
export async function openPostgresRunLedger(options: PostgresRunLedgerOptions): Promise<RunLedger> {
  const schema = options.schema ?? 'public';
  if (!schemaName.test(schema))
    throw new SkillboxConfigError('openPostgresRunLedger', [
      { option: 'schema', problem: 'must be a lower-case SQL identifier (letters, digits, _)' },
    ]);
  if ((options.pool === undefined) === (options.connectionString === undefined))
    throw new SkillboxConfigError('openPostgresRunLedger', [
      { option: 'connectionString', problem: 'give exactly one of "pool" and "connectionString"' },
    ]);
  const ownsPool = options.pool === undefined;
  const pool =
    options.pool ?? new (await import('pg')).default.Pool({ connectionString: options.connectionString, max: 4 });
  const table = `"${schema}".skillbox_worker_runs`;
  await inTransaction(pool, async (client) => {
    // Concurrent first opens would race on CREATE TABLE IF NOT EXISTS; one lock per schema serialises them.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`skillbox_worker_runs:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${table} (
      run_id text PRIMARY KEY,
      state text NOT NULL CHECK (state IN ('started', 'finished')),
      worker_id text NOT NULL,
      attempt integer NOT NULL,
      lease_expires_at timestamptz NOT NULL,
      result jsonb,
      started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      finished_at timestamptz
    )`);
  });
  const lease = `clock_timestamp() + $3 * interval '1 millisecond'`;

  return {
    claim: (claim: RunClaim) =>
      inTransaction(pool, async (client): Promise<RunClaimAnswer> => {
        const inserted = await client.query(
          `INSERT INTO ${table} (run_id, state, worker_id, attempt, lease_expires_at)
           VALUES ($1, 'started', $2, 1, ${lease}) ON CONFLICT (run_id) DO NOTHING RETURNING attempt`,
          [claim.runId, claim.workerId, claim.leaseMs],
        );
        if (inserted.rowCount === 1) return { kind: 'run', attempt: 1 };
        const { rows } = await client.query<RunRow>(
          `SELECT state, worker_id, attempt, result, lease_expires_at > clock_timestamp() AS alive
           FROM ${table} WHERE run_id = $1 FOR UPDATE`,
          [claim.runId],
        );
        const row = rows[0];
        if (row === undefined) throw new Error(`run ledger: the row of "${claim.runId}" vanished during its claim`);
        if (row.state === 'finished') return { kind: 'finished', result: row.result as RuntimeResult };
        if (row.alive) return { kind: 'running', workerId: row.worker_id };
        if (claim.retrySafe) {
          await client.query(
            `UPDATE ${table} SET worker_id = $2, attempt = attempt + 1, lease_expires_at = ${lease} WHERE run_id = $1`,
            [claim.runId, claim.workerId, claim.leaseMs],
          );
          return { kind: 'run', attempt: row.attempt + 1 };
        }
        const result = lostRunResult();
        await client.query(
          `UPDATE ${table} SET state = 'finished', result = $2::jsonb, finished_at = clock_timestamp() WHERE run_id = $1`,
          [claim.runId, JSON.stringify(result)],
        );
        return { kind: 'finished', result };
      }),
    async renew(runId, workerId, leaseMs) {
      const updated = await pool.query(
        `UPDATE ${table} SET lease_expires_at = ${lease} WHERE run_id = $1 AND worker_id = $2 AND state = 'started'`,
        [runId, workerId, leaseMs],
      );
      return updated.rowCount === 1;
    },
    async finish(runId, workerId, result) {
      const updated = await pool.query(
        `UPDATE ${table} SET state = 'finished', result = $3::jsonb, finished_at = clock_timestamp()
         WHERE run_id = $1 AND worker_id = $2 AND state = 'started'`,
        [runId, workerId, JSON.stringify(result)],
      );
      return updated.rowCount === 1;
    },
    async abandon(runId, workerId) {
      await pool.query(`DELETE FROM ${table} WHERE run_id = $1 AND worker_id = $2 AND state = 'started'`, [
        runId,
        workerId,
      ]);
    },
    async close() {
      if (ownsPool) await pool.end();
    },
  };
}

async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const value = await work(client);
    await client.query('COMMIT');
    return value;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
