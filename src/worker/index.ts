// skillbox/worker: sandbox workers that serve skill runs over signed HTTP, and the runtime that
// uses them from an agent worker (docs/workers.md).
export { lostRunResult, lostRunWarning } from './lost-run-result.js';
export { createMemoryRunLedger, type MemoryRunLedgerOptions } from './memory-run-ledger.js';
export { openPostgresRunLedger, type PostgresRunLedgerOptions } from './postgres-run-ledger.js';
export { createRemoteRuntime, type RemoteRuntime, type RemoteRuntimeOptions } from './remote-runtime.js';
export type { RunClaim, RunClaimAnswer, RunLedger } from './run-ledger.js';
export { createSandboxWorker, type SandboxWorker, type SandboxWorkerOptions } from './sandbox-worker.js';
export {
  WorkerBusyError,
  WorkerMessageTooLargeError,
  WorkerUnauthenticatedError,
  WorkerUnreachableError,
} from './worker-errors.js';
export { ledgerAnswerWarning } from './worker-runs.js';
export type { WorkspaceCustody } from './workspace-custody.js';
