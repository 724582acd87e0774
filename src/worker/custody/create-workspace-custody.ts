import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OptionProblems } from '../../config/option-problems.js';
import type { WorkspaceCustody } from '../workspace-custody.js';
import { LeaseLostError } from './custody-errors.js';
import type { WorkspaceLeases } from './postgres-workspace-leases.js';
import type { WorkspaceSnapshotStore } from './snapshot-store.js';
import { restoreWorkspaceSnapshot, type SnapshotRestoreLimits } from './snapshot-tar-reader.js';
import { writeWorkspaceSnapshot } from './snapshot-tar-writer.js';

/** Options of `createWorkspaceCustody`: the leases, the snapshot store, and restore limits. */
export interface WorkspaceCustodyOptions {
  /** Who holds which workspace, and each one's current snapshot (`openPostgresWorkspaceLeases`). */
  leases: WorkspaceLeases;
  /** Where snapshots are kept (`openPostgresSnapshotStore`, `createS3SnapshotStore`). */
  snapshots: WorkspaceSnapshotStore;
  /** Limits a restored snapshot is held to (entries, bytes per file, bytes in all). */
  restoreLimits?: Partial<SnapshotRestoreLimits>;
  /** Where a snapshot is written before it is uploaded; default the system's temporary folder. */
  temporaryFolder?: string;
}

/** What this worker knows of a workspace it holds: the digest its folder was last restored from or saved as. */
interface HeldWorkspace {
  current: string | undefined;
  /** One change at a time per workspace: two concurrent saves would race each other's compare-and-set. */
  queue: Promise<unknown>;
}

/** Writes the snapshot of `folder` to a file, hashing it on the way; the file is read again for the upload. */
async function snapshotToFile(folder: string, file: string): Promise<{ digest: string; bytes: number }> {
  const hash = createHash('sha256');
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  await pipeline(Readable.from(writeWorkspaceSnapshot(folder)), tap, createWriteStream(file, { mode: 0o600 }));
  return { digest: hash.digest('hex'), bytes: (await stat(file)).size };
}

/**
 * Workspace custody on leases and a snapshot store: `acquire` takes the lease and restores the
 * current snapshot into the worker's empty folder; `changed` snapshots the folder, uploads it only
 * when its digest differs from the current one, and moves the pointer by compare-and-set fenced by
 * the lease's epoch; `release` frees the lease and drops the pointer. Snapshots are never deleted
 * here: `pruneWorkspaceSnapshots` does that (docs/workspace-custody.md, "Retention"). `close` hands every held workspace over (lease
 * freed, snapshot kept), so another worker can take it at once.
 */
export function createWorkspaceCustody(options: WorkspaceCustodyOptions): WorkspaceCustody {
  const problems = new OptionProblems('createWorkspaceCustody');
  if (typeof options?.leases?.acquire !== 'function')
    problems.add('leases', 'must be WorkspaceLeases (openPostgresWorkspaceLeases)');
  if (typeof options?.snapshots?.put !== 'function')
    problems.add('snapshots', 'must be a WorkspaceSnapshotStore (openPostgresSnapshotStore, createS3SnapshotStore)');
  problems.throwIfAny();
  const { leases, snapshots } = options;
  const held = new Map<string, HeldWorkspace>();

  const known = (name: string): HeldWorkspace => {
    const lease = leases.held(name);
    const workspace = held.get(name);
    if (workspace === undefined)
      throw new LeaseLostError(name, lease.epoch, 'this custody did not acquire it (call acquire first)');
    return workspace;
  };

  const save = async (name: string, folder: string, workspace: HeldWorkspace): Promise<void> => {
    const lease = leases.held(name);
    const temporary = await mkdtemp(join(options.temporaryFolder ?? tmpdir(), 'skillbox-snapshot-'));
    try {
      const file = join(temporary, 'snapshot.tar');
      const { digest, bytes } = await snapshotToFile(folder, file);
      if (digest === workspace.current) return;
      // Checked again before the upload, to skip it when the lease is known lost; the database
      // fences the pointer whatever this says.
      leases.held(name);
      await leases.touchSnapshot(digest);
      if (!(await snapshots.has(digest))) await snapshots.put(digest, createReadStream(file), bytes);
      await leases.moveCurrentSnapshot(lease, workspace.current, digest);
      workspace.current = digest;
    } finally {
      await rm(temporary, { recursive: true, force: true });
    }
  };

  return {
    async acquire(name, folder) {
      if (held.has(name)) {
        try {
          leases.held(name);
          return;
        } catch {
          held.delete(name);
        }
      }
      const lease = await leases.acquire(name);
      try {
        const current = await leases.currentSnapshot(name);
        if (current !== undefined)
          await restoreWorkspaceSnapshot(await snapshots.open(current), folder, {
            digest: current,
            limits: options.restoreLimits,
          });
        held.set(name, { current, queue: Promise.resolve() });
      } catch (error) {
        // Holding a workspace this worker could not restore would let it save an empty folder over
        // the real content: give the lease up, keeping the snapshot, and report why.
        await leases.handOver(lease).catch(() => undefined);
        throw error;
      }
    },

    async changed(name, folder) {
      const workspace = known(name);
      const run = workspace.queue.then(() => save(name, folder, workspace));
      workspace.queue = run.catch(() => undefined);
      return run;
    },

    async release(name) {
      const workspace = known(name);
      await workspace.queue;
      held.delete(name);
      await leases.release(leases.held(name));
    },

    async close() {
      for (const [name, workspace] of [...held]) {
        await workspace.queue;
        held.delete(name);
        try {
          await leases.handOver(leases.held(name));
        } catch (error) {
          if (!(error instanceof LeaseLostError)) throw error;
        }
      }
    },
  };
}
