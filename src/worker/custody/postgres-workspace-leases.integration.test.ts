import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postgresReachable, postgresUrl } from '../../../test/support/services.js';
import { SkillboxConfigError } from '../../config/config-error.js';
import { LeaseLostError, SnapshotConflictError, WorkspaceHeldError } from './custody-errors.js';
import { openPostgresWorkspaceLeases, type WorkspaceLeases } from './postgres-workspace-leases.js';
import { dropCustodyTables, uniqueCustodyTablePrefix } from './testing/custody-tables.js';

const digestA = 'a'.repeat(64);
const digestB = 'b'.repeat(64);

describe.runIf(postgresReachable)('PostgreSQL workspace leases', () => {
  let tablePrefix: string;
  let pool: pg.Pool;
  const opened: WorkspaceLeases[] = [];
  const open = async (workerId: string, leaseMs = 5_000) => {
    const leases = await openPostgresWorkspaceLeases({ pool, tablePrefix, workerId, leaseMs });
    opened.push(leases);
    return leases;
  };
  /** What a worker that stopped renewing looks like to the others: its lease's expiry in the past. */
  const expire = (workspace: string) =>
    pool.query(
      `UPDATE ${tablePrefix}workspace_leases SET expires_at = now() - interval '1 second' WHERE workspace = $1`,
      [workspace],
    );

  beforeEach(() => {
    tablePrefix = uniqueCustodyTablePrefix();
    pool = new pg.Pool({ connectionString: postgresUrl, max: 4 });
  });

  afterEach(async () => {
    for (const leases of opened.splice(0)) await leases.close();
    await pool.end();
    await dropCustodyTables(postgresUrl, tablePrefix);
  });

  it('takes a free lease at epoch 1, refuses another worker while it is held, and names the holder', async () => {
    const a = await open('worker-a');
    const b = await open('worker-b');
    const lease = await a.acquire('ws-1');
    expect(lease).toEqual({ workspace: 'ws-1', worker: 'worker-a', epoch: 1 });
    const error = await b.acquire('ws-1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkspaceHeldError);
    expect(error).toMatchObject({ code: 'WORKSPACE_HELD', holder: 'worker-a', workspace: 'ws-1' });
    expect(a.held('ws-1')).toEqual(lease);
    expect(() => b.held('ws-1')).toThrow(LeaseLostError);
  });

  it('lets another worker take an expired lease at a higher epoch, and fences the old holder out', async () => {
    const a = await open('worker-a');
    const b = await open('worker-b');
    const old = await a.acquire('ws-1');
    await a.moveCurrentSnapshot(old, undefined, digestA);
    await expire('ws-1');
    const taken = await b.acquire('ws-1');
    expect(taken.epoch).toBe(2);
    await expect(a.renew(old)).rejects.toThrow(LeaseLostError);
    await expect(a.moveCurrentSnapshot(old, digestA, digestB)).rejects.toMatchObject({
      code: 'WORKSPACE_LEASE_LOST',
      message: expect.stringContaining('"worker-b" holds it at epoch 2'),
    });
    await expect(a.release(old)).rejects.toThrow(LeaseLostError);
    expect(await b.currentSnapshot('ws-1')).toBe(digestA);
    await b.moveCurrentSnapshot(taken, digestA, digestB);
    expect(await a.currentSnapshot('ws-1')).toBe(digestB);
  });

  it('renews by heartbeat, so a live holder keeps the lease past its first expiry', async () => {
    const a = await open('worker-a', 300);
    const b = await open('worker-b', 300);
    await a.acquire('ws-1');
    await new Promise((resolve) => setTimeout(resolve, 900));
    await expect(b.acquire('ws-1')).rejects.toThrow(WorkspaceHeldError);
  });

  it('notices at the next heartbeat that the lease was taken, and says so from held()', async () => {
    const a = await open('worker-a', 300);
    const b = await open('worker-b', 300);
    await a.acquire('ws-1');
    await expire('ws-1');
    await b.acquire('ws-1');
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(() => a.held('ws-1')).toThrow(/"worker-b" holds it at epoch 2/);
  });

  it('moves the pointer only from the expected digest', async () => {
    const a = await open('worker-a');
    const lease = await a.acquire('ws-1');
    expect(await a.currentSnapshot('ws-1')).toBeUndefined();
    await a.moveCurrentSnapshot(lease, undefined, digestA);
    await expect(a.moveCurrentSnapshot(lease, undefined, digestB)).rejects.toThrow(SnapshotConflictError);
    await expect(a.moveCurrentSnapshot(lease, digestB, digestA)).rejects.toMatchObject({
      code: 'WORKSPACE_SNAPSHOT_CONFLICT',
    });
    await a.moveCurrentSnapshot(lease, digestA, digestB);
    expect(await a.currentSnapshot('ws-1')).toBe(digestB);
  });

  it('release frees the lease and drops the pointer, but epochs keep growing', async () => {
    const a = await open('worker-a');
    const b = await open('worker-b');
    const first = await a.acquire('ws-1');
    await a.moveCurrentSnapshot(first, undefined, digestA);
    await a.release(first);
    expect(await a.currentSnapshot('ws-1')).toBeUndefined();
    expect(() => a.held('ws-1')).toThrow(LeaseLostError);
    const second = await b.acquire('ws-1');
    expect(second.epoch).toBe(2);
    await expect(a.moveCurrentSnapshot(first, undefined, digestB)).rejects.toThrow(LeaseLostError);
  });

  it('lets a restarted worker with the same id take its own lease back at a higher epoch', async () => {
    const before = await open('worker-a');
    const lease = await before.acquire('ws-1');
    const after = await open('worker-a');
    expect((await after.acquire('ws-1')).epoch).toBe(2);
    await expect(before.moveCurrentSnapshot(lease, undefined, digestA)).rejects.toThrow(LeaseLostError);
  });

  it('creates its tables once when many workers open at the same time', async () => {
    const all = await Promise.all(Array.from({ length: 6 }, (_, index) => open(`worker-${index}`)));
    expect(all).toHaveLength(6);
  });

  it('names the option that is wrong', async () => {
    await expect(openPostgresWorkspaceLeases({ pool, tablePrefix, workerId: '' })).rejects.toBeInstanceOf(
      SkillboxConfigError,
    );
    await expect(openPostgresWorkspaceLeases({ pool, tablePrefix, workerId: 'w', leaseMs: 5 })).rejects.toThrow(
      /leaseMs/,
    );
    await expect(openPostgresWorkspaceLeases({ pool, tablePrefix: 'x; DROP TABLE y', workerId: 'w' })).rejects.toThrow(
      /tablePrefix/,
    );
    await expect(
      openPostgresWorkspaceLeases({ connectionString: 'mysql://user:hunter2@x', workerId: 'w' }),
    ).rejects.toThrow(/"connectionString".*postgres:\/\/ URL/);
    const a = await open('worker-a');
    await expect(a.acquire('')).rejects.toThrow(/"workspace" must be a non-empty string/);
  });
});
