// Workspace custody: which sandbox worker holds a workspace (leases in PostgreSQL) and the snapshots
// another worker restores when the holder is gone. The `skillbox/worker` entry re-exports these.
export { createWorkspaceCustody, type WorkspaceCustodyOptions } from './create-workspace-custody.js';
export {
  LeaseLostError,
  SnapshotConflictError,
  SnapshotNotFoundError,
  WorkspaceHeldError,
  WorkspaceSnapshotError,
} from './custody-errors.js';
export type { PostgresConnectionOptions } from './postgres-connection.js';
export { openPostgresSnapshotStore, type PostgresSnapshotStoreOptions } from './postgres-snapshot-store.js';
export {
  openPostgresWorkspaceLeases,
  type PostgresWorkspaceLeasesOptions,
  type PruneSnapshotsOptions,
  type WorkspaceLease,
  type WorkspaceLeases,
} from './postgres-workspace-leases.js';
export { type PruneWorkspaceSnapshotsOptions, pruneWorkspaceSnapshots } from './prune-workspace-snapshots.js';
export { createS3SnapshotStore, type S3SnapshotStoreOptions } from './s3-snapshot-store.js';
export type { WorkspaceSnapshotStore } from './snapshot-store.js';
export {
  defaultSnapshotRestoreLimits,
  type RestoreSnapshotOptions,
  restoreWorkspaceSnapshot,
  type SnapshotRestoreLimits,
} from './snapshot-tar-reader.js';
export { writeWorkspaceSnapshot } from './snapshot-tar-writer.js';
