import type { RuntimeResult } from '../runtime/runtime-types.js';
import { lostRunResult } from './lost-run-result.js';
import type { RunClaim, RunClaimAnswer, RunLedger } from './run-ledger.js';

type MemoryRun =
  | { state: 'started'; workerId: string; leaseExpiresAt: number; attempt: number }
  | { state: 'finished'; result: RuntimeResult };

/** Options of `createMemoryRunLedger`. */
export interface MemoryRunLedgerOptions {
  /** The ledger's clock (tests move it); default `Date.now`. */
  now?: () => number;
}

/**
 * A run ledger in this process's memory: for one worker (it lives and dies with it), and as the
 * reference the ledger conformance suite holds the PostgreSQL one to. Nothing is ever forgotten
 * while it lives.
 */
export function createMemoryRunLedger(options: MemoryRunLedgerOptions = {}): RunLedger {
  const now = options.now ?? Date.now;
  const runs = new Map<string, MemoryRun>();
  return {
    async claim(claim: RunClaim): Promise<RunClaimAnswer> {
      const known = runs.get(claim.runId);
      const start = (attempt: number): RunClaimAnswer => {
        runs.set(claim.runId, {
          state: 'started',
          workerId: claim.workerId,
          leaseExpiresAt: now() + claim.leaseMs,
          attempt,
        });
        return { kind: 'run', attempt };
      };
      if (known === undefined) return start(1);
      if (known.state === 'finished') return { kind: 'finished', result: known.result };
      if (known.leaseExpiresAt > now()) return { kind: 'running', workerId: known.workerId };
      if (claim.retrySafe) return start(known.attempt + 1);
      const result = lostRunResult();
      runs.set(claim.runId, { state: 'finished', result });
      return { kind: 'finished', result };
    },
    async renew(runId, workerId, leaseMs) {
      const known = runs.get(runId);
      if (known?.state !== 'started' || known.workerId !== workerId) return false;
      known.leaseExpiresAt = now() + leaseMs;
      return true;
    },
    async finish(runId, workerId, result) {
      const known = runs.get(runId);
      if (known?.state !== 'started' || known.workerId !== workerId) return false;
      runs.set(runId, { state: 'finished', result });
      return true;
    },
    async abandon(runId, workerId) {
      const known = runs.get(runId);
      if (known?.state === 'started' && known.workerId === workerId) runs.delete(runId);
    },
    async close() {},
  };
}
