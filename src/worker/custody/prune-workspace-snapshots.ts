import type { WorkspaceLeases } from './postgres-workspace-leases.js';
import type { WorkspaceSnapshotStore } from './snapshot-store.js';

/** Options of `pruneWorkspaceSnapshots`: the leases, the store, and how long an unreferenced snapshot is kept. */
export interface PruneWorkspaceSnapshotsOptions {
  leases: WorkspaceLeases;
  snapshots: WorkspaceSnapshotStore;
  /** Delete snapshots no workspace points at that nobody was about to use for this long; longer than any save takes (at least 60 000 ms). */
  unusedForMs: number;
  /** At most this many per call; default 1 000. */
  limit?: number;
}

/**
 * The retention rule (docs/workspace-custody.md, "Retention"): deletes from the store every
 * snapshot that no workspace's pointer names and that no worker touched (was about to upload or
 * point to) for `unusedForMs`, and returns their digests. Safe to run while workers save: a save
 * touches its digest before asking the store for it, and a touch waits for a prune of that digest
 * to finish, after which the store no longer has it and the save uploads it again.
 */
export function pruneWorkspaceSnapshots(options: PruneWorkspaceSnapshotsOptions): Promise<string[]> {
  const { leases, snapshots } = options;
  return leases.pruneSnapshots({
    unusedForMs: options.unusedForMs,
    limit: options.limit,
    remove: (digest) => snapshots.delete(digest),
  });
}
