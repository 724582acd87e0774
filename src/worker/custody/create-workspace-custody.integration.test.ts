import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postgresReachable, postgresUrl } from '../../../test/support/services.js';
import { tarArchive } from '../../repository/archive/testing/archive-writers.js';
import type { WorkspaceCustody } from '../workspace-custody.js';
import { createWorkspaceCustody } from './create-workspace-custody.js';
import { LeaseLostError, WorkspaceHeldError } from './custody-errors.js';
import { openPostgresSnapshotStore } from './postgres-snapshot-store.js';
import { openPostgresWorkspaceLeases, type WorkspaceLeases } from './postgres-workspace-leases.js';
import { pruneWorkspaceSnapshots } from './prune-workspace-snapshots.js';
import type { WorkspaceSnapshotStore } from './snapshot-store.js';
import { dropCustodyTables, uniqueCustodyTablePrefix } from './testing/custody-tables.js';
import { folderTree } from './testing/folder-tree.js';

const childScript = fileURLToPath(new URL('./testing/custody-worker-child.ts', import.meta.url));

/** A worker's custody in its own process, answering one command at a time. */
class ChildWorker {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #answers: AsyncIterator<string>;

  constructor(workerId: string, tablePrefix: string, leaseMs: number) {
    this.#child = spawn(process.execPath, ['--import', 'tsx', childScript], {
      env: {
        ...process.env,
        SKILLBOX_CUSTODY_POSTGRES: postgresUrl,
        SKILLBOX_CUSTODY_TABLE_PREFIX: tablePrefix,
        SKILLBOX_CUSTODY_WORKER: workerId,
        SKILLBOX_CUSTODY_LEASE_MS: String(leaseMs),
      },
    });
    this.#answers = createInterface({ input: this.#child.stdout })[Symbol.asyncIterator]();
  }

  async answer(): Promise<{ ok: boolean; code?: string; message?: string }> {
    const next = await this.#answers.next();
    if (next.done) throw new Error('the custody child process ended');
    return JSON.parse(next.value) as { ok: boolean; code?: string };
  }

  async send(op: 'acquire' | 'changed' | 'release', name: string, folder = '') {
    this.#child.stdin.write(`${JSON.stringify({ op, name, folder })}\n`);
    return this.answer();
  }

  signal(signal: NodeJS.Signals): void {
    this.#child.kill(signal);
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.#child.once('exit', resolve));
    this.#child.kill('SIGKILL');
    await exited;
  }
}

/** The store with its puts counted: how many uploads a series of changes cost. */
function countingPuts(store: WorkspaceSnapshotStore): WorkspaceSnapshotStore & { puts: number } {
  const counted = {
    puts: 0,
    description: store.description,
    has: (digest: string) => store.has(digest),
    put: (digest: string, bytes: AsyncIterable<Uint8Array>, length: number) => {
      counted.puts += 1;
      return store.put(digest, bytes, length);
    },
    open: (digest: string) => store.open(digest),
    delete: (digest: string) => store.delete(digest),
    close: () => store.close(),
  };
  return counted;
}

describe.runIf(postgresReachable)('workspace custody', () => {
  let root: string;
  let tablePrefix: string;
  const closers: (() => Promise<void>)[] = [];
  const openWorker = async (workerId: string, leaseMs = 5_000) => {
    const leases = await openPostgresWorkspaceLeases({ connectionString: postgresUrl, tablePrefix, workerId, leaseMs });
    const snapshots = countingPuts(await openPostgresSnapshotStore({ connectionString: postgresUrl, tablePrefix }));
    const custody = createWorkspaceCustody({ leases, snapshots });
    closers.push(async () => {
      await custody.close();
      await leases.close();
      await snapshots.close();
    });
    return { leases, snapshots, custody };
  };
  const folder = async (name: string) => {
    const path = join(root, name);
    await mkdir(path);
    return path;
  };

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'skillbox-custody-'));
    tablePrefix = uniqueCustodyTablePrefix();
  });

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await dropCustodyTables(postgresUrl, tablePrefix);
    await rm(root, { recursive: true, force: true });
  });

  it('moves a workspace to another worker when its holder stalls, and fences the holder out when it comes back', async () => {
    const leaseMs = 600;
    const a = new ChildWorker('worker-a', tablePrefix, leaseMs);
    closers.push(() => a.stop());
    expect(await a.answer()).toMatchObject({ ready: true });
    const b = await openWorker('worker-b', leaseMs);

    // A takes the new workspace, writes, and saves it.
    const folderA = await folder('a');
    expect(await a.send('acquire', 'ws', folderA)).toEqual({ ok: true });
    await mkdir(join(folderA, 'out'));
    await writeFile(join(folderA, 'out', 'report.md'), '# from A\n');
    await writeFile(join(folderA, 'run.sh'), 'echo A\n', { mode: 0o755 });
    expect(await a.send('changed', 'ws', folderA)).toEqual({ ok: true });
    const savedByA = await b.leases.currentSnapshot('ws');
    expect(savedByA).toMatch(/^[0-9a-f]{64}$/);

    // While A is alive, B is refused.
    await expect(b.custody.acquire('ws', await folder('b-too-early'))).rejects.toBeInstanceOf(WorkspaceHeldError);

    // A stalls (its heartbeat stops with it); once its lease expires B takes over and sees A's files.
    a.signal('SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, leaseMs * 2));
    const folderB = await folder('b');
    await b.custody.acquire('ws', folderB);
    expect(await folderTree(folderB)).toEqual(await folderTree(folderA));
    expect((await lstat(join(folderB, 'run.sh'))).mode & 0o777).toBe(0o755);
    await writeFile(join(folderB, 'out', 'b.txt'), 'from B');
    await b.custody.changed('ws', folderB);
    const savedByB = await b.leases.currentSnapshot('ws');
    expect(savedByB).not.toBe(savedByA);

    // A comes back, changes its stale copy and tries to save it: fenced out.
    await writeFile(join(folderA, 'stale.txt'), 'A did not know it had lost the workspace');
    a.signal('SIGCONT');
    const refused = await a.send('changed', 'ws', folderA);
    expect(refused).toMatchObject({ ok: false, code: 'WORKSPACE_LEASE_LOST' });
    expect(refused.message).toContain('"worker-b" holds it');
    expect(await a.send('release', 'ws')).toMatchObject({ ok: false, code: 'WORKSPACE_LEASE_LOST' });

    // A's stale snapshot never became current: a third worker restores B's content.
    expect(await b.leases.currentSnapshot('ws')).toBe(savedByB);
    await b.custody.close();
    const c = await openWorker('worker-c', leaseMs);
    const folderC = await folder('c');
    await c.custody.acquire('ws', folderC);
    expect(await folderTree(folderC)).toEqual(await folderTree(folderB));
    expect(await folderTree(folderC)).not.toHaveProperty('stale.txt');
  });

  it('uploads only when the content changed', async () => {
    const { custody, snapshots, leases } = await openWorker('worker-a');
    const workspace = await folder('ws');
    await custody.acquire('ws', workspace);
    await custody.changed('ws', workspace);
    expect(snapshots.puts).toBe(1);
    const first = await leases.currentSnapshot('ws');
    await custody.changed('ws', workspace);
    await writeFile(join(workspace, 'touched.txt'), 'same bytes');
    await custody.changed('ws', workspace);
    expect(snapshots.puts).toBe(2);
    await rm(join(workspace, 'touched.txt'));
    await custody.changed('ws', workspace);
    // Back to the first content: that snapshot is stored already, so the pointer moves without an upload.
    expect(snapshots.puts).toBe(2);
    expect(await leases.currentSnapshot('ws')).toBe(first);
  });

  it('runs concurrent changes of one workspace one after the other', async () => {
    const { custody, leases } = await openWorker('worker-a');
    const workspace = await folder('ws');
    await custody.acquire('ws', workspace);
    await writeFile(join(workspace, 'file.txt'), 'final');
    await Promise.all([
      custody.changed('ws', workspace),
      custody.changed('ws', workspace),
      custody.changed('ws', workspace),
    ]);
    const other = await folder('other');
    await custody.close();
    const { custody: next } = await openWorker('worker-b');
    await next.acquire('ws', other);
    expect(await folderTree(other)).toEqual({ 'file.txt': 'final' });
    expect(await leases.currentSnapshot('ws')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('release drops the pointer: the next holder starts from an empty folder', async () => {
    const { custody } = await openWorker('worker-a');
    const workspace = await folder('ws');
    await custody.acquire('ws', workspace);
    await writeFile(join(workspace, 'file.txt'), 'gone after release');
    await custody.changed('ws', workspace);
    await custody.release('ws');
    await expect(custody.changed('ws', workspace)).rejects.toBeInstanceOf(LeaseLostError);
    const { custody: next } = await openWorker('worker-b');
    const fresh = await folder('fresh');
    await next.acquire('ws', fresh);
    expect(await readdir(fresh)).toEqual([]);
  });

  it('gives the lease back, keeping the snapshot, when the current snapshot cannot be restored', async () => {
    const { custody, leases } = await openWorker('worker-a');
    const workspace = await folder('ws');
    await custody.acquire('ws', workspace);
    await writeFile(join(workspace, 'file.txt'), 'kept');
    await custody.changed('ws', workspace);
    const saved = (await leases.currentSnapshot('ws')) as string;
    await custody.close();
    // The stored bytes are replaced behind the store's back with a hostile tar.
    const pool = new pg.Pool({ connectionString: postgresUrl, max: 1 });
    try {
      const hostile = tarArchive([{ name: '../escaped.txt', data: 'x' }]);
      const found = await pool.query<{ oid: number }>(
        `SELECT oid FROM ${tablePrefix}workspace_snapshots WHERE digest = $1`,
        [saved],
      );
      await pool.query('SELECT lo_put($1, 0, $2)', [found.rows[0]?.oid, hostile]);
    } finally {
      await pool.end();
    }
    const { custody: next, leases: nextLeases } = await openWorker('worker-b');
    const target = await folder('target');
    await expect(next.acquire('ws', target)).rejects.toThrow(/"\.\.\/escaped\.txt" refused/);
    expect(await readdir(target)).toEqual([]);
    expect(await readdir(root)).not.toContain('escaped.txt');
    expect(await nextLeases.currentSnapshot('ws')).toBe(saved);
    expect(() => nextLeases.held('ws')).toThrow(LeaseLostError);
    const { leases: third } = await openWorker('worker-c');
    // Epochs 1 (worker-a) and 2 (worker-b, handed back at once after the refused restore).
    expect((await third.acquire('ws')).epoch).toBe(3);
  });

  it('prunes snapshots no workspace points at once unused for the grace period, sparing recent ones', async () => {
    const { custody, snapshots, leases } = await openWorker('worker-a');
    const workspace = await folder('ws');
    await custody.acquire('ws', workspace);
    const saved: string[] = [];
    for (const content of ['first', 'second', 'third']) {
      await writeFile(join(workspace, 'file.txt'), content);
      await custody.changed('ws', workspace);
      saved.push((await leases.currentSnapshot('ws')) as string);
    }
    const [first, second, third] = saved as [string, string, string];
    const backdate = async () => {
      const pool = new pg.Pool({ connectionString: postgresUrl, max: 1 });
      await pool.query(`UPDATE ${tablePrefix}workspace_snapshot_uses SET last_used_at = now() - interval '2 hours'`);
      await pool.end();
    };
    await backdate();
    // A worker about to upload or point to `first` again touches it: the prune spares it.
    await leases.touchSnapshot(first);
    const hour = 60 * 60 * 1000;
    expect(await pruneWorkspaceSnapshots({ leases, snapshots, unusedForMs: hour })).toEqual([second]);
    expect(await snapshots.has(second)).toBe(false);
    expect(await snapshots.has(first)).toBe(true);
    expect(await snapshots.has(third)).toBe(true);
    // Nothing is pruned before its grace period, and the current snapshot never is.
    expect(await pruneWorkspaceSnapshots({ leases, snapshots, unusedForMs: hour })).toEqual([]);
    await backdate();
    expect(await pruneWorkspaceSnapshots({ leases, snapshots, unusedForMs: hour })).toEqual([first]);
    // Released, the workspace points at nothing: its last snapshot goes after the grace period.
    await custody.release('ws');
    await backdate();
    expect(await pruneWorkspaceSnapshots({ leases, snapshots, unusedForMs: hour })).toEqual([third]);
    await expect(pruneWorkspaceSnapshots({ leases, snapshots, unusedForMs: 5 })).rejects.toThrow(/"unusedForMs"/);
  });

  it('makes a save that touches a digest while it is being pruned wait, then upload it again', async () => {
    const { custody, snapshots, leases } = await openWorker('worker-a');
    const other = await openWorker('worker-b');
    const workspace = await folder('ws');
    await custody.acquire('ws', workspace);
    await writeFile(join(workspace, 'file.txt'), 'old state');
    await custody.changed('ws', workspace);
    const old = (await leases.currentSnapshot('ws')) as string;
    await writeFile(join(workspace, 'file.txt'), 'new state');
    await custody.changed('ws', workspace);
    const pool = new pg.Pool({ connectionString: postgresUrl, max: 1 });
    await pool.query(`UPDATE ${tablePrefix}workspace_snapshot_uses SET last_used_at = now() - interval '2 hours'`);
    await pool.end();
    let touched = false;
    let touchedDuringPrune: boolean | undefined;
    let touch: Promise<void> | undefined;
    const pruned = await leases.pruneSnapshots({
      unusedForMs: 60 * 60 * 1000,
      remove: async (digest) => {
        touch = other.leases.touchSnapshot(digest).then(() => {
          touched = true;
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        touchedDuringPrune = touched;
        await snapshots.delete(digest);
      },
    });
    await touch;
    expect(pruned).toEqual([old]);
    expect(touchedDuringPrune).toBe(false);
    expect(touched).toBe(true);
    // After its touch the saver asks the store, which no longer has it: it uploads, and the
    // touch keeps the new copy from the next prune.
    expect(await other.snapshots.has(old)).toBe(false);
    expect(await pruneWorkspaceSnapshots({ leases, snapshots, unusedForMs: 60 * 60 * 1000 })).toEqual([]);
  });

  it('names the option that is wrong', () => {
    expect(() =>
      createWorkspaceCustody({ leases: {} as WorkspaceLeases, snapshots: {} as WorkspaceSnapshotStore }),
    ).toThrow(/"leases"[\s\S]*"snapshots"/);
  });

  it('is usable through the WorkspaceCustody interface alone', async () => {
    const { custody } = await openWorker('worker-a');
    const asInterface: WorkspaceCustody = custody;
    const workspace = await folder('ws');
    await asInterface.acquire('ws', workspace);
    await asInterface.acquire('ws', workspace);
    await asInterface.release('ws');
  });
});
