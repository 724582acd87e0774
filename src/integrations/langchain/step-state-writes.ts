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
      if (state !== base) this.#latest.set(invocation, state);
      return result;
    });
  }

  /** The invocation ended: its calls are over. */
  forget(invocation: string): void {
    this.#latest.delete(invocation);
  }
}
