import { SkillboxError } from '../../errors.js';

/** Another worker holds the workspace's lease and has renewed it in time. */
export class WorkspaceHeldError extends SkillboxError {
  readonly workspace: string;
  readonly holder: string;
  readonly expiresAt: Date;

  constructor(workspace: string, holder: string, expiresAt: Date) {
    super(
      'WORKSPACE_HELD',
      `workspace ${JSON.stringify(workspace)} is held by worker ${JSON.stringify(holder)} until ${expiresAt.toISOString()} (unless it renews); try again after that or on that worker`,
    );
    this.workspace = workspace;
    this.holder = holder;
    this.expiresAt = expiresAt;
  }
}

/**
 * The lease this worker took is no longer its own: another worker took the workspace with a higher
 * epoch (after this one failed to renew in time), or it was released. Nothing this worker writes
 * for the workspace is accepted any more.
 */
export class LeaseLostError extends SkillboxError {
  readonly workspace: string;
  readonly epoch: number;

  constructor(workspace: string, epoch: number, detail: string) {
    super(
      'WORKSPACE_LEASE_LOST',
      `the lease on workspace ${JSON.stringify(workspace)} at epoch ${epoch} is lost: ${detail}; this worker's writes to it are refused`,
    );
    this.workspace = workspace;
    this.epoch = epoch;
  }
}

/** The current-snapshot pointer is not the one this worker last saw, although its lease still holds. */
export class SnapshotConflictError extends SkillboxError {
  constructor(workspace: string, expected: string | undefined, found: string | undefined) {
    super(
      'WORKSPACE_SNAPSHOT_CONFLICT',
      `the current snapshot of workspace ${JSON.stringify(workspace)} is ${found ?? 'none'}, not ${expected ?? 'none'} as expected: is the same lease used from two places?`,
    );
  }
}

/** A workspace folder could not be written as a snapshot; `path` names the entry to blame, when one is. */
export class WorkspaceSnapshotError extends SkillboxError {
  readonly path: string | undefined;

  constructor(message: string, path?: string, options?: { cause?: unknown }) {
    super(
      'WORKSPACE_SNAPSHOT_FAILED',
      path === undefined ? `snapshot failed: ${message}` : `snapshot of ${JSON.stringify(path)} failed: ${message}`,
      options,
    );
    this.path = path;
  }
}

/** A snapshot store holds no snapshot of that digest. */
export class SnapshotNotFoundError extends SkillboxError {
  readonly digest: string;

  constructor(digest: string, where: string) {
    super('WORKSPACE_SNAPSHOT_NOT_FOUND', `no snapshot ${digest} in ${where}`);
    this.digest = digest;
  }
}
