import { createHash } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
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
  readonly #waitMs: number;

  constructor(base: string, custody: WorkspaceCustody | undefined, waitMs = 0) {
    this.#base = base;
    this.#custody = custody;
    this.#waitMs = waitMs;
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
    // Whatever this worker had of it before is stale: the snapshot is the workspace.
    await rm(folder, { recursive: true, force: true });
    await mkdir(folder, { recursive: true, mode: 0o700 });
    await this.#acquire(name, folder);
    return folder;
  }

  /**
   * Takes the workspace, waiting (up to the wait given) while another worker's lease on it runs:
   * a balancer sends a workspace here when its holder stopped answering, and that holder's lease
   * lapses a little later. A holder that is alive keeps renewing, and the wait ends in the refusal.
   */
  async #acquire(name: string, folder: string): Promise<void> {
    const deadline = Date.now() + this.#waitMs;
    for (;;) {
      try {
        await this.#custody?.acquire(name, folder);
        return;
      } catch (error) {
        const held = error as { code?: unknown; expiresAt?: unknown };
        if (held.code !== 'WORKSPACE_HELD' || Date.now() >= deadline) throw error;
        const lapse = held.expiresAt instanceof Date ? held.expiresAt.getTime() - Date.now() : 250;
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(Math.max(lapse + 50, 50), deadline - Date.now(), 1000)),
        );
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
