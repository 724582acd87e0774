import type { RuntimeResult } from '../runtime/runtime-types.js';

/** What a worker asks the ledger before it runs a command that has a `runId`. */
export interface RunClaim {
  runId: string;
  /** The worker asking; it holds the run while its lease lasts. */
  workerId: string;
  /** How long the lease lasts unless renewed (the worker renews it while the run goes on). */
  leaseMs: number;
  /** The command may run again when the worker that started it was lost (`RuntimeCommand.retrySafe`). */
  retrySafe: boolean;
}

/**
 * The ledger's answer to a claim:
 *
 * - `run`: the id was unknown (or was lost and is safe to retry): it is now recorded as started by
 *   this worker, which runs it and reports the end with `finish`. `attempt` counts the starts (1 the
 *   first time, 2 after one retry, ...).
 * - `finished`: the id ended before; `result` is what was recorded (for a lost run, the lost result).
 * - `running`: another start of the id holds a live lease (`workerId` says whose): wait and claim again.
 *
 * A run whose lease expired (its worker died) and is not safe to retry is recorded as finished with
 * the lost result in the same step, so every later claim gets that same answer.
 */
export type RunClaimAnswer =
  | { kind: 'run'; attempt: number }
  | { kind: 'finished'; result: RuntimeResult }
  | { kind: 'running'; workerId: string };

/**
 * Where sandbox workers record the runs that have an id, so a repeated id is answered with the
 * recorded result and a run whose worker died is reported lost (or run again when safe), never
 * silently repeated. Shared by every worker of a deployment (PostgreSQL: `openPostgresRunLedger`);
 * the memory ledger serves one worker. Each call is atomic: two workers claiming one id at once
 * get one `run` between them. Leases are measured on the ledger's clock (the database's), so the
 * workers' clocks need not agree. docs/workers.md, "The run ledger".
 */
export interface RunLedger {
  claim(claim: RunClaim): Promise<RunClaimAnswer>;
  /** Extends the lease of a run this worker holds; false when it no longer holds it (taken over). */
  renew(runId: string, workerId: string, leaseMs: number): Promise<boolean>;
  /** Records the result of a run this worker holds; false (nothing written) when it no longer holds it. */
  finish(runId: string, workerId: string, result: RuntimeResult): Promise<boolean>;
  /**
   * Forgets a claim this worker holds whose run was refused before it started (a cwd that leads out
   * of the workspace): nothing ran, so a later claim of the id runs it rather than reporting it lost.
   */
  abandon(runId: string, workerId: string): Promise<void>;
  close(): Promise<void>;
}
