import type pg from 'pg';
import { OptionProblems } from '../../config/option-problems.js';
import { SnapshotNotFoundError, WorkspaceSnapshotError } from './custody-errors.js';
import { connectionOf, createTablesOnce, type PostgresConnectionOptions } from './postgres-connection.js';
import { checkSnapshotDigest, type WorkspaceSnapshotStore } from './snapshot-store.js';

// lo_open modes (libpq-fs.h).
const largeObjectWrite = 0x20000;
const largeObjectRead = 0x40000;
/** Bytes per lowrite / loread round trip: few round trips, and no more than this held per call. */
const chunkBytes = 1024 * 1024;

/** Options of `openPostgresSnapshotStore`: a pool or a connection string, and the table prefix. */
export type PostgresSnapshotStoreOptions = PostgresConnectionOptions;

/**
 * Snapshots as PostgreSQL large objects, one per digest, listed in `<prefix>workspace_snapshots`
 * (digest, oid, bytes). A put writes the large object and its row in one transaction, so a put that
 * fails (or loses a race to another put of the same digest) leaves nothing behind. Reads stream the
 * object a chunk at a time inside a read transaction.
 */
export async function openPostgresSnapshotStore(
  options: PostgresSnapshotStoreOptions,
): Promise<WorkspaceSnapshotStore> {
  const problems = new OptionProblems('openPostgresSnapshotStore');
  if (typeof options !== 'object' || options === null) {
    problems.add('options', 'must be an object { pool } or { connectionString }');
    problems.throwIfAny();
  }
  const { pool, ownsPool, tablePrefix } = connectionOf(options, problems);
  const table = `${tablePrefix}workspace_snapshots`;
  try {
    await createTablesOnce(pool, `${tablePrefix}workspace_snapshots`, [
      `CREATE TABLE IF NOT EXISTS ${table} (
        digest text PRIMARY KEY, oid oid NOT NULL, bytes bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
    ]);
  } catch (error) {
    if (ownsPool) await pool.end();
    throw error;
  }
  return new PostgresSnapshotStore(pool, ownsPool, table);
}

class PostgresSnapshotStore implements WorkspaceSnapshotStore {
  readonly description: string;
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #table: string;

  constructor(pool: pg.Pool, ownsPool: boolean, table: string) {
    this.#pool = pool;
    this.#ownsPool = ownsPool;
    this.#table = table;
    this.description = `PostgreSQL large objects (table ${table})`;
  }

  async has(digest: string): Promise<boolean> {
    checkSnapshotDigest('PostgresSnapshotStore.has', digest);
    const found = await this.#pool.query(`SELECT 1 FROM ${this.#table} WHERE digest = $1`, [digest]);
    return (found.rowCount ?? 0) > 0;
  }

  async put(digest: string, bytes: AsyncIterable<Uint8Array>, byteLength: number): Promise<void> {
    checkSnapshotDigest('PostgresSnapshotStore.put', digest);
    if (await this.has(digest)) return;
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      const created = await client.query<{ oid: number }>('SELECT lo_create(0) AS oid');
      const oid = (created.rows[0] as { oid: number }).oid;
      const opened = await client.query<{ fd: number }>('SELECT lo_open($1, $2) AS fd', [oid, largeObjectWrite]);
      const fd = (opened.rows[0] as { fd: number }).fd;
      let written = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flush = async () => {
        if (pendingBytes === 0) return;
        await client.query('SELECT lowrite($1, $2)', [fd, Buffer.concat(pending, pendingBytes)]);
        written += pendingBytes;
        pending = [];
        pendingBytes = 0;
      };
      for await (const chunk of bytes) {
        pending.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        pendingBytes += chunk.byteLength;
        if (pendingBytes >= chunkBytes) await flush();
      }
      await flush();
      if (written !== byteLength)
        throw new WorkspaceSnapshotError(`${written} bytes arrived for a snapshot of ${byteLength} bytes`, digest);
      await client.query('SELECT lo_close($1)', [fd]);
      const inserted = await client.query(
        `INSERT INTO ${this.#table} (digest, oid, bytes) VALUES ($1, $2, $3) ON CONFLICT (digest) DO NOTHING RETURNING 1`,
        [digest, oid, byteLength],
      );
      // Another put of the same digest committed first: its object stays, this one is rolled back.
      await client.query(inserted.rowCount === 0 ? 'ROLLBACK' : 'COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async open(digest: string): Promise<AsyncIterable<Uint8Array>> {
    checkSnapshotDigest('PostgresSnapshotStore.open', digest);
    const client = await this.#pool.connect();
    let fd: number;
    try {
      await client.query('BEGIN READ ONLY');
      const found = await client.query<{ oid: number }>(`SELECT oid FROM ${this.#table} WHERE digest = $1`, [digest]);
      const row = found.rows[0];
      if (row === undefined) throw new SnapshotNotFoundError(digest, this.description);
      const opened = await client.query<{ fd: number }>('SELECT lo_open($1, $2) AS fd', [row.oid, largeObjectRead]);
      fd = (opened.rows[0] as { fd: number }).fd;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      throw error;
    }
    return readLargeObject(client, fd);
  }

  async delete(digest: string): Promise<void> {
    checkSnapshotDigest('PostgresSnapshotStore.delete', digest);
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      const removed = await client.query<{ oid: number }>(
        `DELETE FROM ${this.#table} WHERE digest = $1 RETURNING oid`,
        [digest],
      );
      for (const { oid } of removed.rows) await client.query('SELECT lo_unlink($1)', [oid]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.#ownsPool) await this.#pool.end();
  }
}

/** The object's bytes a chunk at a time; the transaction (and the client) end when the reader stops, early or not. */
async function* readLargeObject(client: pg.PoolClient, fd: number): AsyncGenerator<Buffer> {
  let failed = false;
  try {
    for (;;) {
      const read = await client.query<{ data: Buffer }>('SELECT loread($1, $2) AS data', [fd, chunkBytes]);
      const data = (read.rows[0] as { data: Buffer }).data;
      if (data.length === 0) return;
      yield data;
    }
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(failed ? true : undefined);
  }
}
