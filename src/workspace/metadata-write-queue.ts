import type { WorkspaceMetadata } from './workspace-metadata.js';

/** Where a `MetadataWriteQueue` reads its first state from and writes every later one to. */
export interface MetadataWriteQueueOptions {
  /** The stored metadata, or undefined when there is none usable (missing, damaged). */
  read: () => Promise<WorkspaceMetadata | undefined>;
  /** The metadata to start from when `read` found none. */
  fresh: () => WorkspaceMetadata;
  /** Stores the whole state (atomically: a reader sees the previous or this one). */
  write: (metadata: WorkspaceMetadata) => Promise<void>;
}

/**
 * A workspace's metadata kept in memory and written out whole, with writes coalesced: the stored
 * copy is read once, every change is made to the state in memory, and changes that arrive while a
 * write is under way share the next write instead of queueing one write each. A run's record, a
 * staged skill and an input staged at once cost at most two writes, not three.
 *
 * The store is the record that survives a restart, not the source of truth while the process lives,
 * which also means a command that rewrites it cannot change what this process believes was staged.
 */
export class MetadataWriteQueue {
  private readonly options: MetadataWriteQueueOptions;
  private state: WorkspaceMetadata | undefined;
  private load: Promise<void> | undefined;
  /** The last write started, settled whatever its outcome: the next one waits for it. */
  private writes: Promise<unknown> = Promise.resolve();
  /** A write not started yet: changes made before it starts ride along. */
  private queuedWrite: Promise<void> | undefined;
  private writeError: unknown;
  /** Changes not yet handed to a write (waiting for the first read): flush waits for them too. */
  private readonly pendingChanges = new Set<Promise<void>>();

  constructor(options: MetadataWriteQueueOptions) {
    this.options = options;
  }

  /** The metadata in memory (read on first use); the object itself, not a copy. */
  async current(): Promise<WorkspaceMetadata> {
    if (this.state === undefined) {
      this.load ??= this.options.read().then((metadata) => {
        this.state ??= metadata ?? this.options.fresh();
      });
      await this.load;
    }
    return this.state as WorkspaceMetadata;
  }

  /**
   * `change` receives the latest metadata and returns the next (the same object when it only
   * appends); it runs synchronously on the latest state, so concurrent changes never lose one
   * another. Resolves once a write holding the change is stored; a change that throws changes nothing.
   */
  change(change: (metadata: WorkspaceMetadata) => WorkspaceMetadata): Promise<void> {
    const done = this.apply(change);
    this.pendingChanges.add(done);
    const settle = () => void this.pendingChanges.delete(done);
    done.then(settle, settle);
    return done;
  }

  /** Resolves when every change made so far is stored; throws when the last write failed (after one retry). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.pendingChanges]);
    await this.writes;
    if (this.writeError !== undefined) {
      // Every write holds the whole state, so a retry repairs whatever an earlier failure missed.
      await this.writeSoon();
    }
  }

  private async apply(change: (metadata: WorkspaceMetadata) => WorkspaceMetadata): Promise<void> {
    await this.current();
    const next = change(this.state as WorkspaceMetadata);
    const now = new Date().toISOString();
    next.updated_at = now;
    next.last_access = now;
    this.state = next;
    return this.writeSoon();
  }

  private writeSoon(): Promise<void> {
    if (this.queuedWrite !== undefined) return this.queuedWrite;
    const write = this.writes.then(async () => {
      // From here on, a new change needs a write of its own: this one may already have serialised.
      this.queuedWrite = undefined;
      try {
        await this.options.write(await this.current());
        this.writeError = undefined;
      } catch (error) {
        this.writeError = error;
        throw error;
      }
    });
    this.queuedWrite = write;
    this.writes = write.catch(() => undefined);
    return write;
  }
}
