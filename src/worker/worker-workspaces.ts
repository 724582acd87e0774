import { createHash } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkspaceCustody } from './workspace-custody.js';

/**
 * Where a worker keeps each workspace: a folder under its own, named by a digest of the workspace's
 * name (the agent side's host path), so no name, however it climbs, reaches another place. With
 * custody, the first operation on a workspace this worker does not hold takes it (`acquire`:
 * lease and last snapshot) into a fresh folder; without, the folder is simply made.
 */
export class WorkerWorkspaces {
  readonly #base: string;
  readonly #custody: WorkspaceCustody | undefined;
  /** Workspaces this worker holds (custody acquired), or is acquiring. */
  readonly #held = new Map<string, Promise<string>>();
  /** How long an operation may wait for a dead holder's lease to run out. */
  readonly #heldWaitMs: number;

  constructor(base: string, custody: WorkspaceCustody | undefined, heldWaitMs = 0) {
    this.#base = base;
    this.#custody = custody;
    this.#heldWaitMs = heldWaitMs;
  }

  folderName(name: string): string {
    return path.join(this.#base, createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 32));
  }

  /** The workspace's folder, ready for an operation (acquired from custody first when not held). */
  async open(name: unknown): Promise<{ name: string; folder: string }> {
    if (typeof name !== 'string' || name === '') throw new Error('the request names no workspace');
    let ready = this.#held.get(name);
    if (ready === undefined) {
      ready = this.#take(name);
      this.#held.set(name, ready);
      // A failed acquire (held elsewhere) is not remembered: the next operation asks again.
      ready.catch(() => this.#held.delete(name));
    }
    return { name, folder: await ready };
  }

  async #take(name: string): Promise<string> {
    const folder = this.folderName(name);
    if (this.#custody === undefined) {
      await mkdir(folder, { recursive: true, mode: 0o700 });
      return folder;
    }
    const deadline = Date.now() + this.#heldWaitMs;
    let waitedFor: number | undefined;
    for (;;) {
      // Whatever this worker had of it before is stale: the snapshot is the workspace.
      await rm(folder, { recursive: true, force: true });
      await mkdir(folder, { recursive: true, mode: 0o700 });
      try {
        await this.#custody.acquire(name, folder);
        return folder;
      } catch (error) {
        const until = heldUntil(error);
        // Right after its holder was killed, a balancer sends the workspace here while the dead
        // holder's lease still runs: wait for that lease to run out, once. A holder that renewed it
        // meanwhile is alive and keeps the workspace; a lease beyond the wait is refused at once.
        if (until === undefined || (waitedFor !== undefined && until > waitedFor) || until >= deadline) throw error;
        waitedFor = until;
        await sleep(Math.max(50, until - Date.now() + 50));
      }
    }
  }

  /** After an operation that may have changed the workspace. */
  async changed(name: string, folder: string): Promise<void> {
    await this.#custody?.changed(name, folder);
  }

  /** The workspace was removed (its folder too). */
  async removed(name: string): Promise<void> {
    this.#held.delete(name);
    await this.#custody?.release(name);
  }
}

/** The end of the lease a `WorkspaceHeldError` names, if it is one. */
function heldUntil(error: unknown): number | undefined {
  const { code, expiresAt } = (error ?? {}) as { code?: unknown; expiresAt?: unknown };
  return code === 'WORKSPACE_HELD' && expiresAt instanceof Date ? expiresAt.getTime() : undefined;
}
