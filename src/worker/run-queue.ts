import { WorkerBusyError } from './worker-errors.js';

/** The bounds of a worker's run queue. */
export interface RunQueueLimits {
  maxConcurrentRuns: number;
  maxQueuedRuns: number;
  queueWaitMs: number;
}

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

/**
 * At most `maxConcurrentRuns` runs at once, at most `maxQueuedRuns` waiting, none waiting longer
 * than `queueWaitMs`: past any of these, `enter` throws WorkerBusyError before the run starts, so
 * the backlog is never unbounded and a caller learns at once that it should go elsewhere.
 */
export class RunQueue {
  readonly #limits: RunQueueLimits;
  readonly #waiting: Waiter[] = [];
  #running = 0;

  constructor(limits: RunQueueLimits) {
    this.#limits = limits;
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Waits for a turn; returns the function that gives it back (call it exactly once, when the run ends). */
  async enter(): Promise<() => void> {
    if (this.#running < this.#limits.maxConcurrentRuns) {
      this.#running += 1;
      return this.#leave();
    }
    if (this.#waiting.length >= this.#limits.maxQueuedRuns)
      throw new WorkerBusyError(
        this.#limits.queueWaitMs,
        `${this.#running} runs are running (maxConcurrentRuns) and ${this.#waiting.length} wait (maxQueuedRuns)`,
      );
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
          reject(
            new WorkerBusyError(
              this.#limits.queueWaitMs,
              `no run ended within queueWaitMs (${this.#limits.queueWaitMs} ms)`,
            ),
          );
        }, this.#limits.queueWaitMs),
      };
      this.#waiting.push(waiter);
    });
    // The turn was handed over by #leave with the count kept, so nothing else can take it between.
    return this.#leave();
  }

  #leave(): () => void {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.#waiting.shift();
      if (next === undefined) this.#running -= 1;
      else next.grant();
    };
  }
}
