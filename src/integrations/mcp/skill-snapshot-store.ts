import type { SkillContext, SkillRepository } from '../../repository/types.js';
import { type SkillSnapshot, takeSkillSnapshot } from './skill-snapshot.js';

/**
 * The snapshots one server (one MCP session) has handed out. `skills/list` and `skills/get` take a
 * fresh snapshot, so a listing always describes the disk as it is; `resources/read` serves the
 * last snapshot of the skill, so the bytes match the digests the client last received. Kept per
 * session: a second client listing never changes the bytes the first one reads.
 */
export class SkillSnapshotStore {
  readonly #repository: SkillRepository;
  readonly #context: SkillContext | undefined;
  readonly #snapshots = new Map<string, SkillSnapshot>();
  // One snapshot per skill at a time: two requests for the same skill share the read.
  readonly #pending = new Map<string, Promise<SkillSnapshot>>();

  constructor(repository: SkillRepository, context: SkillContext | undefined) {
    this.#repository = repository;
    this.#context = context;
  }

  /** A new snapshot of the skill, which from now on is the one `current` serves. */
  fresh(name: string): Promise<SkillSnapshot> {
    const pending = this.#pending.get(name);
    if (pending !== undefined) return pending;
    const taking = takeSkillSnapshot(this.#repository, name, this.#context).then(
      (snapshot) => {
        this.#snapshots.set(name, snapshot);
        this.#pending.delete(name);
        return snapshot;
      },
      (error: unknown) => {
        this.#snapshots.delete(name);
        this.#pending.delete(name);
        throw error;
      },
    );
    this.#pending.set(name, taking);
    return taking;
  }

  /** The snapshot last handed out for the skill, or a new one when there is none. */
  current(name: string): Promise<SkillSnapshot> {
    const held = this.#snapshots.get(name);
    return held === undefined ? this.fresh(name) : Promise.resolve(held);
  }

  /** Forgets the snapshots of skills that are gone, so their bytes are not kept for nothing. */
  forgetAllBut(names: ReadonlySet<string>): void {
    for (const name of this.#snapshots.keys()) if (!names.has(name)) this.#snapshots.delete(name);
  }
}
