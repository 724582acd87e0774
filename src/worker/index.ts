// skillbox/worker: sandbox workers that serve skill runs over signed HTTP, and the runtime that
// uses them from an agent worker (docs/workers.md); workspace custody, so a workspace outlives its
// worker (docs/workspace-custody.md).

export { createWorkspaceCustody, type WorkspaceCustodyOptions } from './custody/create-workspace-custody.js';
export {
  LeaseLostError,
  SnapshotConflictError,
  SnapshotNotFoundError,
  WorkspaceHeldError,
  WorkspaceSnapshotError,
} from './custody/custody-errors.js';
export type { PostgresConnectionOptions } from './custody/postgres-connection.js';
export { openPostgresSnapshotStore, type PostgresSnapshotStoreOptions } from './custody/postgres-snapshot-store.js';
export {
  openPostgresWorkspaceLeases,
  type PostgresWorkspaceLeasesOptions,
  type PruneSnapshotsOptions,
  type WorkspaceLease,
  type WorkspaceLeases,
} from './custody/postgres-workspace-leases.js';
export { type PruneWorkspaceSnapshotsOptions, pruneWorkspaceSnapshots } from './custody/prune-workspace-snapshots.js';
export { createS3SnapshotStore, type S3SnapshotStoreOptions } from './custody/s3-snapshot-store.js';
export type { WorkspaceSnapshotStore } from './custody/snapshot-store.js';
export {
  defaultSnapshotRestoreLimits,
  type RestoreSnapshotOptions,
  restoreWorkspaceSnapshot,
  type SnapshotRestoreLimits,
} from './custody/snapshot-tar-reader.js';
export { writeWorkspaceSnapshot } from './custody/snapshot-tar-writer.js';
export { lostRunResult, lostRunWarning } from './lost-run-result.js';
export { createMemoryRunLedger, type MemoryRunLedgerOptions } from './memory-run-ledger.js';
export { openPostgresRunLedger, type PostgresRunLedgerOptions } from './postgres-run-ledger.js';
export { createRemoteRuntime, type RemoteRuntime, type RemoteRuntimeOptions } from './remote-runtime.js';
export type { RunClaim, RunClaimAnswer, RunLedger } from './run-ledger.js';
export { createSandboxWorker, type SandboxWorker, type SandboxWorkerOptions } from './sandbox-worker.js';
export { workspaceRouteHeader } from './worker-call.js';
export {
  WorkerBusyError,
  WorkerMessageTooLargeError,
  WorkerUnauthenticatedError,
  WorkerUnreachableError,
} from './worker-errors.js';
export { ledgerAnswerWarning } from './worker-runs.js';
export type { WorkspaceCustody } from './workspace-custody.js';
