import { throwConfigError } from '../../config/option-problems.js';

/**
 * Where snapshots are kept: immutable tars named by the SHA-256 of their bytes. Which snapshot is a
 * workspace's current one is not the store's business: that pointer lives with the leases
 * (PostgreSQL), so a store needs no conditional writes.
 */
export interface WorkspaceSnapshotStore {
  /** Where the snapshots go, for messages (never a credential). */
  readonly description: string;
  /** True when a snapshot of that digest is stored. */
  has(digest: string): Promise<boolean>;
  /**
   * Stores `byteLength` bytes read once from `bytes` under `digest`. A digest already stored is
   * kept as it is (a digest names one content, so a second put has nothing new to say).
   */
  put(digest: string, bytes: AsyncIterable<Uint8Array>, byteLength: number): Promise<void>;
  /** The snapshot's bytes as a stream; throws SnapshotNotFoundError before streaming when there is none. */
  open(digest: string): Promise<AsyncIterable<Uint8Array>>;
  /** Removes the snapshot; nothing happens when there is none. */
  delete(digest: string): Promise<void>;
  /** Ends what the store opened itself (not a pool or client the caller passed in). */
  close(): Promise<void>;
}

const digestPattern = /^[0-9a-f]{64}$/;

/** A digest as stores accept it: 64 lower-case hex digits, so it is safe in a key or a file name. */
export function checkSnapshotDigest(component: string, digest: unknown): string {
  if (typeof digest !== 'string' || !digestPattern.test(digest))
    throwConfigError(
      component,
      'digest',
      `must be a SHA-256 as 64 lower-case hex digits; got ${JSON.stringify(digest)}`,
    );
  return digest;
}
