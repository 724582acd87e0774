import { setTimeout as sleep } from 'node:timers/promises';
import type { RuntimeCommand, RuntimeResult, WorkspaceRuntime } from '../runtime/runtime-types.js';
import { lostRunResult } from './lost-run-result.js';
import type { RunLedger } from './run-ledger.js';
import type { RunQueue } from './run-queue.js';

/** The warning on a result the ledger answered without running the command again. */
export const ledgerAnswerWarning =
  'answered from the run ledger: this run id ran before, and this is its recorded result';

/**
 * How a worker runs one command: through its bounded queue, and, for a command with a `runId` when
 * the worker has a ledger, only once per id across the deployment (run-ledger.ts): a finished id
 * gets its recorded result, one running on this worker is attached to, one running on another live
 * worker is waited for, one whose worker died is reported lost or (retry-safe) run again.
 */
export class WorkerRuns {
  readonly #runtime: WorkspaceRuntime;
  readonly #queue: RunQueue;
  readonly #ledger: RunLedger | undefined;
  readonly #workerId: string;
  readonly #leaseMs: number;
  readonly #inFlight = new Map<string, Promise<RuntimeResult>>();
  #closing = false;

  constructor(options: {
    runtime: WorkspaceRuntime;
    queue: RunQueue;
    ledger: RunLedger | undefined;
    workerId: string;
    leaseMs: number;
  }) {
    this.#runtime = options.runtime;
    this.#queue = options.queue;
    this.#ledger = options.ledger;
    this.#workerId = options.workerId;
    this.#leaseMs = options.leaseMs;
  }

  /**
   * The worker is stopping: runs still going are being killed, and their results must not be
   * recorded as finished. Their ledger rows stay `started` and their leases run out, so another
   * worker reports them lost (or runs a retry-safe one again), as after a crash.
   */
  shutDown(): void {
    this.#closing = true;
  }

  /** `command` is ready for the runtime (its workspace and cwd are this worker's folders). */
  async run(command: RuntimeCommand, callerGone: AbortSignal): Promise<RuntimeResult> {
    const { runId } = command;
    if (runId === undefined || this.#ledger === undefined) {
      const leave = await this.#queue.enter();
      try {
        const result = await this.#runtime.run(command);
        return this.#closing ? lostRunResult('the sandbox worker shut down during the run') : result;
      } finally {
        leave();
      }
    }
    for (;;) {
      const attached = this.#inFlight.get(runId);
      if (attached !== undefined) return attached;
      // The place in the queue comes first: a busy answer must leave nothing recorded.
      const leave = await this.#queue.enter();
      let answer: Awaited<ReturnType<RunLedger['claim']>>;
      try {
        answer = await this.#ledger.claim({
          runId,
          workerId: this.#workerId,
          leaseMs: this.#leaseMs,
          retrySafe: command.retrySafe === true,
        });
      } catch (error) {
        leave();
        throw error;
      }
      if (answer.kind === 'run') {
        const running = this.#runClaimed(this.#ledger, command, runId, answer.attempt).finally(leave);
        this.#inFlight.set(runId, running);
        void running.then(
          () => this.#inFlight.delete(runId),
          () => this.#inFlight.delete(runId),
        );
        return running;
      }
      leave();
      if (answer.kind === 'finished')
        return { ...answer.result, warnings: [...answer.result.warnings, ledgerAnswerWarning] };
      // Started here between the look above and the claim: attach at once.
      const startedHere = this.#inFlight.get(runId);
      if (startedHere !== undefined) return startedHere;
      // Running elsewhere under a live lease (or under this worker's id before a restart): it ends,
      // or its lease runs out; ask again until then.
      if (callerGone.aborted) throw new Error(`run "${runId}": the caller went away while it ran on another worker`);
      await sleep(Math.min(500, Math.max(50, this.#leaseMs / 4)));
    }
  }

  async #runClaimed(
    ledger: RunLedger,
    command: RuntimeCommand,
    runId: string,
    attempt: number,
  ): Promise<RuntimeResult> {
    const renewal = setInterval(
      () => void ledger.renew(runId, this.#workerId, this.#leaseMs).catch(() => undefined),
      Math.max(50, Math.floor(this.#leaseMs / 3)),
    );
    let result: RuntimeResult;
    try {
      result = await this.#runtime.run(command);
    } catch (error) {
      // Refused before it started (the runtime's own cwd check): nothing ran, so nothing is recorded.
      await ledger.abandon(runId, this.#workerId).catch(() => undefined);
      throw error;
    } finally {
      clearInterval(renewal);
    }
    if (this.#closing) return lostRunResult('the sandbox worker shut down during the run');
    if (attempt > 1)
      result = {
        ...result,
        warnings: [
          ...result.warnings,
          `run again (attempt ${attempt}): the worker of an earlier attempt was lost, and the command is safe to retry`,
        ],
      };
    try {
      const recorded = await ledger.finish(runId, this.#workerId, result);
      if (!recorded)
        result = {
          ...result,
          warnings: [...result.warnings, 'the run ledger did not record this result: another worker took the run over'],
        };
    } catch (error) {
      result = {
        ...result,
        warnings: [...result.warnings, `the run ledger could not record this result: ${(error as Error).message}`],
      };
    }
    return result;
  }
}
