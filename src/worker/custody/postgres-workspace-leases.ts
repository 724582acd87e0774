import type pg from 'pg';
import { OptionProblems, throwConfigError } from '../../config/option-problems.js';
import { SkillboxError } from '../../errors.js';
import { LeaseLostError, SnapshotConflictError, WorkspaceHeldError } from './custody-errors.js';
import { connectionOf, createTablesOnce, type PostgresConnectionOptions } from './postgres-connection.js';
import { checkSnapshotDigest } from './snapshot-store.js';

interface CustodyTables {
  leases: string;
  current: string;
  /** When each stored snapshot was last about to be used: what a prune spares. */
  uses: string;
}

/** Options of `WorkspaceLeases.pruneSnapshots`. */
export interface PruneSnapshotsOptions {
  /** Snapshots no workspace points at and unused for this long are deleted; longer than any save takes (at least 60 000). */
  unusedForMs: number;
  /** Deletes the snapshot's bytes from the store; called while the prune holds the digest's row. */
  remove(digest: string): Promise<void>;
  /** At most this many per call; default 1 000. */
  limit?: number;
}

/** A lease this worker took: the epoch is what fences every later write for the workspace. */
export interface WorkspaceLease {
  readonly workspace: string;
  readonly worker: string;
  readonly epoch: number;
}

/**
 * Which worker holds each workspace, and the workspace's current snapshot, in one place so that
 * moving the pointer can be fenced by the lease in the same statement.
 */
export interface WorkspaceLeases {
  readonly workerId: string;
  readonly leaseMs: number;
  /** Takes the workspace's lease when it is free, expired or already this worker's, raising its epoch; renews it by heartbeat until released or lost. Throws WorkspaceHeldError while another worker holds it. */
  acquire(workspace: string): Promise<WorkspaceLease>;
  /** The lease this object holds on the workspace; throws LeaseLostError when it was lost or never taken. */
  held(workspace: string): WorkspaceLease;
  /** Pushes the expiry out by `leaseMs`; throws LeaseLostError when another worker took it meanwhile. */
  renew(lease: WorkspaceLease): Promise<void>;
  /** Frees the lease and drops the workspace's current-snapshot pointer; fenced by the epoch. */
  release(lease: WorkspaceLease): Promise<void>;
  /** Gives the lease up at once, keeping the current snapshot, so another worker can take the workspace over without waiting for the expiry; fenced by the epoch. */
  handOver(lease: WorkspaceLease): Promise<void>;
  /** The digest of the workspace's current snapshot, or undefined when it has none. */
  currentSnapshot(workspace: string): Promise<string | undefined>;
  /**
   * Compare-and-set of the current-snapshot pointer from `expected` to `next`, accepted only while
   * `lease` is still the workspace's lease (same worker, same epoch). Throws LeaseLostError when it
   * is not, SnapshotConflictError when the pointer is not `expected`.
   */
  moveCurrentSnapshot(lease: WorkspaceLease, expected: string | undefined, next: string): Promise<void>;
  /**
   * Marks a digest as about to be uploaded or pointed to, so a prune spares it for `unusedForMs`.
   * Called before asking the store whether it has the digest: a prune deleting it at that moment
   * finishes first, and the store then no longer has it.
   */
  touchSnapshot(digest: string): Promise<void>;
  /** Deletes snapshots no workspace points at that were not touched for `unusedForMs`; returns their digests. */
  pruneSnapshots(options: PruneSnapshotsOptions): Promise<string[]>;
  /** Stops the heartbeats and ends a pool this object opened. Leases are left to expire, as a crash would. */
  close(): Promise<void>;
}

/** Options of `openPostgresWorkspaceLeases`: the connection, this worker's id and the lease length. */
export interface PostgresWorkspaceLeasesOptions extends PostgresConnectionOptions {
  /** This worker's id, unique among live workers (a restarted worker may reuse it: its new acquire raises the epoch). */
  workerId: string;
  /** How long a lease lasts without renewal; the heartbeat renews every third of it. Default 15 000. */
  leaseMs?: number;
}

const maxNameLength = 512;

/** A workspace name as the leases key it: any text a worker names its workspaces by, within reason. */
function checkWorkspaceName(workspace: unknown): string {
  if (
    typeof workspace !== 'string' ||
    workspace.length === 0 ||
    workspace.length > maxNameLength ||
    workspace.includes('\0')
  )
    throwConfigError(
      'WorkspaceLeases',
      'workspace',
      `must be a non-empty string of at most ${maxNameLength} characters without NUL; got ${JSON.stringify(workspace)}`,
    );
  return workspace;
}

/**
 * Leases in PostgreSQL: one row per workspace (workspace, worker, epoch, expires_at) and one row per
 * workspace for its current snapshot (workspace, digest, epoch). Every decision is one statement on
 * the database's clock: taking a lease is an upsert that succeeds only on a free, expired or own
 * row and raises the epoch, so of two workers racing exactly one gets a row back; renewing,
 * releasing and moving the pointer name the epoch and match nothing once another worker took the
 * lease. A freed lease keeps its row and epoch, so epochs only grow and a worker that comes back
 * with an old one can never match again.
 */
export async function openPostgresWorkspaceLeases(options: PostgresWorkspaceLeasesOptions): Promise<WorkspaceLeases> {
  const problems = new OptionProblems('openPostgresWorkspaceLeases');
  if (typeof options !== 'object' || options === null) {
    problems.add('options', 'must be an object { workerId, pool } or { workerId, connectionString }');
    problems.throwIfAny();
  }
  const leaseMs = options.leaseMs ?? 15_000;
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 100)
    problems.add('leaseMs', `must be an integer of at least 100; got ${JSON.stringify(leaseMs)}`);
  if (typeof options.workerId !== 'string' || options.workerId.length === 0 || options.workerId.length > maxNameLength)
    problems.add('workerId', `must be a non-empty string of at most ${maxNameLength} characters`);
  const { pool, ownsPool, tablePrefix } = connectionOf(options, problems);
  const tables: CustodyTables = {
    leases: `${tablePrefix}workspace_leases`,
    current: `${tablePrefix}workspace_current_snapshots`,
    uses: `${tablePrefix}workspace_snapshot_uses`,
  };
  try {
    await createTablesOnce(pool, `${tablePrefix}workspace_custody`, [
      `CREATE TABLE IF NOT EXISTS ${tables.leases} (
        workspace text PRIMARY KEY, worker text, epoch bigint NOT NULL, expires_at timestamptz NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS ${tables.current} (
        workspace text PRIMARY KEY, digest text NOT NULL, epoch bigint NOT NULL, updated_at timestamptz NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS ${tables.uses} (digest text PRIMARY KEY, last_used_at timestamptz NOT NULL)`,
    ]);
  } catch (error) {
    if (ownsPool) await pool.end();
    throw error;
  }
  return new PostgresWorkspaceLeases(pool, ownsPool, tables, options.workerId, leaseMs);
}

class PostgresWorkspaceLeases implements WorkspaceLeases {
  readonly workerId: string;
  readonly leaseMs: number;
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #tables: CustodyTables;
  readonly #held = new Map<string, { lease: WorkspaceLease; heartbeat: NodeJS.Timeout }>();
  readonly #lost = new Map<string, string>();
  #closed = false;

  constructor(pool: pg.Pool, ownsPool: boolean, tables: CustodyTables, workerId: string, leaseMs: number) {
    this.#pool = pool;
    this.#ownsPool = ownsPool;
    this.#tables = tables;
    this.workerId = workerId;
    this.leaseMs = leaseMs;
  }

  async acquire(workspace: string): Promise<WorkspaceLease> {
    this.#checkOpen();
    const name = checkWorkspaceName(workspace);
    let row: { epoch: string } | undefined;
    // Twice at most: a lease freed between the upsert and the look at its holder is taken on the retry.
    for (let attempt = 0; row === undefined; attempt += 1) {
      row = await this.#take(name);
      if (row !== undefined) break;
      const holder = await this.#pool.query<{ worker: string | null; expires_at: Date; live: boolean }>(
        `SELECT worker, expires_at, (worker IS NOT NULL AND expires_at > now()) AS live
         FROM ${this.#tables.leases} WHERE workspace = $1`,
        [name],
      );
      const found = holder.rows[0];
      if (found?.live === true || attempt > 0)
        throw new WorkspaceHeldError(name, found?.worker ?? '(released just now)', found?.expires_at ?? new Date());
    }
    const lease: WorkspaceLease = { workspace: name, worker: this.workerId, epoch: Number(row.epoch) };
    this.#stopHeartbeat(name);
    this.#lost.delete(name);
    const heartbeat = setInterval(() => void this.#beat(lease), Math.max(50, Math.floor(this.leaseMs / 3)));
    heartbeat.unref();
    this.#held.set(name, { lease, heartbeat });
    return lease;
  }

  /** The upsert that takes a free, expired or own lease; undefined when another worker holds it. */
  async #take(name: string): Promise<{ epoch: string } | undefined> {
    // The upsert locks the row, and its WHERE is checked against the latest committed version: a
    // racing worker that inserted or took the lease first leaves this one with no row returned.
    const taken = await this.#pool.query<{ epoch: string }>(
      `INSERT INTO ${this.#tables.leases} AS l (workspace, worker, epoch, expires_at)
       VALUES ($1, $2, 1, now() + $3 * interval '1 millisecond')
       ON CONFLICT (workspace) DO UPDATE SET worker = EXCLUDED.worker, epoch = l.epoch + 1, expires_at = EXCLUDED.expires_at
       WHERE l.worker IS NULL OR l.expires_at <= now() OR l.worker = EXCLUDED.worker
       RETURNING epoch`,
      [name, this.workerId, this.leaseMs],
    );
    return taken.rows[0];
  }

  held(workspace: string): WorkspaceLease {
    const entry = this.#held.get(checkWorkspaceName(workspace));
    if (entry !== undefined) return entry.lease;
    throw new LeaseLostError(
      workspace,
      0,
      this.#lost.get(workspace) ?? `worker ${JSON.stringify(this.workerId)} does not hold it (acquire it first)`,
    );
  }

  async #beat(lease: WorkspaceLease): Promise<void> {
    try {
      await this.renew(lease);
    } catch (error) {
      // A database that does not answer is retried at the next beat; only a refusal ends the lease.
      if (error instanceof LeaseLostError) {
        this.#stopHeartbeat(lease.workspace);
        this.#lost.set(lease.workspace, error.message);
      }
    }
  }

  async renew(lease: WorkspaceLease): Promise<void> {
    this.#checkOpen();
    const renewed = await this.#pool.query(
      `UPDATE ${this.#tables.leases} SET expires_at = now() + $4 * interval '1 millisecond'
       WHERE workspace = $1 AND worker = $2 AND epoch = $3`,
      [lease.workspace, lease.worker, lease.epoch, this.leaseMs],
    );
    if (renewed.rowCount === 0) throw await this.#lostError(lease);
  }

  async release(lease: WorkspaceLease): Promise<void> {
    this.#checkOpen();
    this.#stopHeartbeat(lease.workspace);
    const released = await this.#pool.query<{ freed: string }>(
      `WITH freed AS (
         UPDATE ${this.#tables.leases} SET worker = NULL, expires_at = now()
         WHERE workspace = $1 AND worker = $2 AND epoch = $3 RETURNING workspace
       ), dropped AS (
         DELETE FROM ${this.#tables.current} WHERE workspace IN (SELECT workspace FROM freed) RETURNING 1
       )
       SELECT (SELECT count(*) FROM freed) AS freed, (SELECT count(*) FROM dropped) AS dropped`,
      [lease.workspace, lease.worker, lease.epoch],
    );
    if (Number(released.rows[0]?.freed) === 0) throw await this.#lostError(lease);
    this.#lost.set(lease.workspace, 'this worker released it');
  }

  async handOver(lease: WorkspaceLease): Promise<void> {
    this.#checkOpen();
    this.#stopHeartbeat(lease.workspace);
    const handed = await this.#pool.query(
      `UPDATE ${this.#tables.leases} SET worker = NULL, expires_at = now() WHERE workspace = $1 AND worker = $2 AND epoch = $3`,
      [lease.workspace, lease.worker, lease.epoch],
    );
    if (handed.rowCount === 0) throw await this.#lostError(lease);
    this.#lost.set(lease.workspace, 'this worker handed it over');
  }

  async currentSnapshot(workspace: string): Promise<string | undefined> {
    this.#checkOpen();
    const found = await this.#pool.query<{ digest: string }>(
      `SELECT digest FROM ${this.#tables.current} WHERE workspace = $1`,
      [checkWorkspaceName(workspace)],
    );
    return found.rows[0]?.digest;
  }

  async moveCurrentSnapshot(lease: WorkspaceLease, expected: string | undefined, next: string): Promise<void> {
    this.#checkOpen();
    // The lease row is read FOR SHARE: an acquire by another worker (an UPDATE of that row) waits
    // for this statement, or, if it committed first, this statement sees the new epoch and matches
    // nothing. Without the lock a takeover could commit between the check and the write.
    const move =
      expected === undefined
        ? `INSERT INTO ${this.#tables.current} (workspace, digest, epoch, updated_at)
           SELECT $1, $4, $3, now() FROM lease ON CONFLICT (workspace) DO NOTHING RETURNING 1`
        : `UPDATE ${this.#tables.current} SET digest = $4, epoch = $3, updated_at = now()
           WHERE workspace = $1 AND digest = $5 AND EXISTS (SELECT 1 FROM lease) RETURNING 1`;
    const moved = await this.#pool.query<{ held: string; moved: string }>(
      `WITH lease AS (
         SELECT epoch FROM ${this.#tables.leases} WHERE workspace = $1 AND worker = $2 AND epoch = $3 FOR SHARE
       ), moved AS (${move})
       SELECT (SELECT count(*) FROM lease) AS held, (SELECT count(*) FROM moved) AS moved`,
      expected === undefined
        ? [lease.workspace, lease.worker, lease.epoch, next]
        : [lease.workspace, lease.worker, lease.epoch, next, expected],
    );
    const row = moved.rows[0];
    if (Number(row?.held) === 0) throw await this.#lostError(lease);
    if (Number(row?.moved) === 0)
      throw new SnapshotConflictError(lease.workspace, expected, await this.currentSnapshot(lease.workspace));
  }

  async touchSnapshot(digest: string): Promise<void> {
    this.#checkOpen();
    checkSnapshotDigest('WorkspaceLeases.touchSnapshot', digest);
    // An upsert waits for a prune that holds the row; after that prune the row is gone and this
    // inserts it anew, so the caller's next store check sees the deletion.
    await this.#pool.query(
      `INSERT INTO ${this.#tables.uses} (digest, last_used_at) VALUES ($1, now())
       ON CONFLICT (digest) DO UPDATE SET last_used_at = now()`,
      [digest],
    );
  }

  async pruneSnapshots(options: PruneSnapshotsOptions): Promise<string[]> {
    this.#checkOpen();
    const problems = new OptionProblems('WorkspaceLeases.pruneSnapshots');
    if (!Number.isSafeInteger(options?.unusedForMs) || options.unusedForMs < 60_000)
      problems.add(
        'unusedForMs',
        `must be an integer of at least 60000 (longer than any save); got ${JSON.stringify(options?.unusedForMs)}`,
      );
    if (typeof options?.remove !== 'function')
      problems.add('remove', 'must be a function deleting one digest from the store');
    const limit = options?.limit ?? 1_000;
    if (!Number.isSafeInteger(limit) || limit < 1)
      problems.add('limit', `must be a positive integer; got ${JSON.stringify(limit)}`);
    problems.throwIfAny();
    const unused = `last_used_at < now() - $2 * interval '1 millisecond'
      AND NOT EXISTS (SELECT 1 FROM ${this.#tables.current} c WHERE c.digest = u.digest)`;
    const candidates = await this.#pool.query<{ digest: string }>(
      `SELECT digest FROM ${this.#tables.uses} u WHERE ${unused} ORDER BY last_used_at LIMIT $1`,
      [limit, options.unusedForMs],
    );
    const pruned: string[] = [];
    for (const { digest } of candidates.rows) {
      const client = await this.#pool.connect();
      try {
        await client.query('BEGIN');
        // Checked again under the row's lock: a touch or a pointer move since the listing spares it.
        const locked = await client.query(
          `SELECT digest FROM ${this.#tables.uses} u WHERE digest = $1 AND ${unused} FOR UPDATE`,
          [digest, options.unusedForMs],
        );
        if (locked.rowCount === 0) {
          await client.query('ROLLBACK');
          continue;
        }
        await options.remove(digest);
        await client.query(`DELETE FROM ${this.#tables.uses} WHERE digest = $1`, [digest]);
        await client.query('COMMIT');
        pruned.push(digest);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    }
    return pruned;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const name of [...this.#held.keys()]) this.#stopHeartbeat(name);
    if (this.#ownsPool) await this.#pool.end();
  }

  #stopHeartbeat(workspace: string): void {
    const entry = this.#held.get(workspace);
    if (entry === undefined) return;
    clearInterval(entry.heartbeat);
    this.#held.delete(workspace);
  }

  async #lostError(lease: WorkspaceLease): Promise<LeaseLostError> {
    const found = await this.#pool.query<{ worker: string | null; epoch: string }>(
      `SELECT worker, epoch FROM ${this.#tables.leases} WHERE workspace = $1`,
      [lease.workspace],
    );
    const row = found.rows[0];
    const detail =
      row === undefined
        ? 'the workspace has no lease'
        : row.worker === null
          ? `it was released (epoch ${row.epoch})`
          : `worker ${JSON.stringify(row.worker)} holds it at epoch ${row.epoch}`;
    this.#stopHeartbeat(lease.workspace);
    this.#lost.set(lease.workspace, detail);
    return new LeaseLostError(lease.workspace, lease.epoch, detail);
  }

  #checkOpen(): void {
    if (this.#closed)
      throw new SkillboxError(
        'WORKSPACE_LEASE_LOST',
        'the workspace leases were closed: this worker holds no lease any more',
      );
  }
}
