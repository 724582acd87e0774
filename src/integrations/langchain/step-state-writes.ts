import { SessionCallQueue } from '../../state/session-call-queue.js';
import type { SkillboxGraphState } from './graph-state.js';

/**
 * The state-writing tool calls of one step, run one at a time, each over the state the previous
 * one left. LangGraph gives every call of a step the same snapshot of the graph state, so two
 * `skill_load` calls would each extend the load order from that snapshot and one would be lost;
 * here the second sees the first's result and writes one version higher (graph-state.ts).
 * Results are kept per invocation (one `invoke` of the agent) and dropped when it ends.
 */
export class StepStateWrites {
  /**
   * Invocations whose end was never seen (an interrupted or failed run skips afterAgent) are
   * dropped oldest first beyond this many, so a long-lived agent does not collect them; a dropped
   * one only loses what a later call of a step still running would have read.
   */
  static readonly maxInvocations = 1000;
  readonly #queue = new SessionCallQueue();
  readonly #latest = new Map<string, SkillboxGraphState>();

  /** Runs `work` after the calls queued before it in the same invocation, over the newest state. */
  run<T>(
    snapshot: SkillboxGraphState,
    agentName: string,
    work: (base: SkillboxGraphState) => Promise<{ result: T; state: SkillboxGraphState }>,
  ): Promise<T> {
    const invocation = snapshot.invocation;
    return this.#queue.run(invocation, agentName, async () => {
      const latest = this.#latest.get(invocation);
      // A newer state of the same invocation was written by an earlier call of this step.
      const base = latest !== undefined && latest.version > snapshot.version ? latest : snapshot;
      const { result, state } = await work(base);
      if (state !== base) this.#remember(invocation, state);
      return result;
    });
  }

  #remember(invocation: string, state: SkillboxGraphState): void {
    // Re-inserted at the end, so the map's order is the order of last use.
    this.#latest.delete(invocation);
    this.#latest.set(invocation, state);
    while (this.#latest.size > StepStateWrites.maxInvocations) {
      const oldest = this.#latest.keys().next().value as string;
      this.#latest.delete(oldest);
    }
  }

  /** The invocation ended: its calls are over. */
  forget(invocation: string): void {
    this.#latest.delete(invocation);
  }
}
