// Attacks on who may move a workspace's current snapshot: a worker that comes back after its lease
// was taken over (a long pause, a partition) and writes with its old epoch; a forged lease naming
// another worker or a future epoch; and many workers racing to take one lease. Each must leave the
// pointer where the rightful holder put it, and a race must have exactly one winner.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LeaseLostError, WorkspaceHeldError } from '../../src/worker/custody/custody-errors.js';
import {
  openPostgresWorkspaceLeases,
  type WorkspaceLease,
  type WorkspaceLeases,
} from '../../src/worker/custody/postgres-workspace-leases.js';
import { dropCustodyTables, uniqueCustodyTablePrefix } from '../../src/worker/custody/testing/custody-tables.js';
import { postgresReachable, postgresUrl } from '../support/services.js';

const honest = 'a'.repeat(64);
const stale = 'f'.repeat(64);

describe.runIf(postgresReachable)('workspace lease fencing', () => {
  let tablePrefix: string;
  const opened: WorkspaceLeases[] = [];
  const pools: pg.Pool[] = [];
  /** Each worker on its own pool, as separate processes would be. */
  const worker = async (workerId: string, leaseMs = 5_000) => {
    const pool = new pg.Pool({ connectionString: postgresUrl, max: 2 });
    pools.push(pool);
    const leases = await openPostgresWorkspaceLeases({ pool, tablePrefix, workerId, leaseMs });
    opened.push(leases);
    return leases;
  };
  const missRenewals = async (workspace: string) => {
    const pool = new pg.Pool({ connectionString: postgresUrl, max: 1 });
    await pool.query(
      `UPDATE ${tablePrefix}workspace_leases SET expires_at = now() - interval '1 second' WHERE workspace = $1`,
      [workspace],
    );
    await pool.end();
  };

  beforeEach(() => {
    tablePrefix = uniqueCustodyTablePrefix();
  });

  afterEach(async () => {
    for (const leases of opened.splice(0)) await leases.close();
    for (const pool of pools.splice(0)) await pool.end();
    await dropCustodyTables(postgresUrl, tablePrefix);
  });

  it('refuses a writer that comes back with a stale epoch, whatever it claims to expect', async () => {
    const a = await worker('worker-a');
    const b = await worker('worker-b');
    const old = await a.acquire('ws');
    await missRenewals('ws');
    const current = await b.acquire('ws');
    await b.moveCurrentSnapshot(current, undefined, honest);
    for (const expected of [undefined, honest]) {
      await expect(a.moveCurrentSnapshot(old, expected, stale)).rejects.toBeInstanceOf(LeaseLostError);
    }
    await expect(a.release(old)).rejects.toBeInstanceOf(LeaseLostError);
    await expect(a.renew(old)).rejects.toBeInstanceOf(LeaseLostError);
    expect(await b.currentSnapshot('ws')).toBe(honest);
    // The stale worker's failed renewal did not take the lease back either.
    await b.renew(current);
  });

  it('refuses the old incarnation of a restarted worker: same worker id, older epoch', async () => {
    const before = await worker('worker-a');
    const old = await before.acquire('ws');
    const after = await worker('worker-a');
    const current = await after.acquire('ws');
    await after.moveCurrentSnapshot(current, undefined, honest);
    await expect(before.moveCurrentSnapshot(old, honest, stale)).rejects.toBeInstanceOf(LeaseLostError);
    await expect(before.release(old)).rejects.toBeInstanceOf(LeaseLostError);
    expect(await after.currentSnapshot('ws')).toBe(honest);
  });

  it('refuses forged leases: another worker id, or an epoch ahead of the real one', async () => {
    const a = await worker('worker-a');
    const b = await worker('worker-b');
    const real = await a.acquire('ws');
    await a.moveCurrentSnapshot(real, undefined, honest);
    const forgeries: WorkspaceLease[] = [
      { ...real, worker: 'worker-b' },
      { ...real, epoch: real.epoch + 1 },
      { workspace: 'ws', worker: 'worker-b', epoch: real.epoch + 1 },
    ];
    for (const forged of forgeries) {
      await expect(b.moveCurrentSnapshot(forged, honest, stale)).rejects.toBeInstanceOf(LeaseLostError);
      await expect(b.release(forged)).rejects.toBeInstanceOf(LeaseLostError);
    }
    expect(await a.currentSnapshot('ws')).toBe(honest);
    expect(a.held('ws')).toEqual(real);
  });

  it('gives a race for a free lease exactly one winner', async () => {
    const workers = await Promise.all(Array.from({ length: 8 }, (_, index) => worker(`racer-${index}`)));
    for (let round = 0; round < 10; round += 1) {
      const results = await Promise.allSettled(workers.map((leases) => leases.acquire(`free-${round}`)));
      const won = results.filter((result) => result.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const result of results)
        if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(WorkspaceHeldError);
    }
  });

  it('gives a race for an expired lease exactly one winner, at the next epoch', async () => {
    const workers = await Promise.all(Array.from({ length: 8 }, (_, index) => worker(`racer-${index}`)));
    const first = await worker('first');
    await first.acquire('ws');
    for (let round = 0; round < 10; round += 1) {
      await missRenewals('ws');
      const results = await Promise.allSettled(workers.map((leases) => leases.acquire('ws')));
      const won = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      expect(won).toHaveLength(1);
      expect(won[0]?.epoch).toBe(round + 2);
    }
  });
});
