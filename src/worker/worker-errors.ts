import { SkillboxError } from '../errors.js';

/**
 * The worker has no room for another run: `maxConcurrentRuns` are running and `maxQueuedRuns` wait,
 * or this run waited `queueWaitMs` without a turn. Thrown before anything started, so the caller may
 * send the run to another worker or try again after `retryAfterMs`.
 */
export class WorkerBusyError extends SkillboxError {
  /** What the worker suggested waiting before trying again (its Retry-After), in milliseconds. */
  readonly retryAfterMs: number;

  constructor(retryAfterMs: number, why: string) {
    super('WORKER_BUSY', `the sandbox worker is busy: ${why}; try again in ${Math.ceil(retryAfterMs / 1000)} s`);
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * The worker refused the request's signature. The worker says no more than "unauthenticated" (a
 * prober learns nothing); the likely causes are named here for the operator.
 */
export class WorkerUnauthenticatedError extends SkillboxError {
  constructor(url: string) {
    super(
      'WORKER_UNAUTHENTICATED',
      `the sandbox worker at ${url} refused the request as unauthenticated: the secret differs from the worker's, or this host's clock is more than the signature window away from the worker's`,
    );
  }
}

/** A request or an answer over its size cap; `limit` names the option that sets it. */
export class WorkerMessageTooLargeError extends SkillboxError {
  readonly limit: 'maxRequestBytes' | 'maxResponseBytes';

  constructor(limit: 'maxRequestBytes' | 'maxResponseBytes', bytes: number, why: string) {
    super('WORKER_MESSAGE_TOO_LARGE', `${why}: over ${limit} (${bytes} bytes)`);
    this.limit = limit;
  }
}

/** The worker could not be reached before the request was sent: nothing started there. */
export class WorkerUnreachableError extends SkillboxError {
  constructor(url: string, cause: unknown) {
    super('WORKER_UNREACHABLE', `the sandbox worker at ${url} could not be reached: ${(cause as Error).message}`, {
      cause,
    });
  }
}
