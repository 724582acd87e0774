import type { RuntimeResult } from '../runtime/runtime-types.js';

/** The warning on every lost run (the text the durable turn and the model see). */
export const lostRunWarning = 'the worker was lost during the run; it may have had effects';

/**
 * What a run that was lost mid-way reports: a result, not a throw (the contract: everything after
 * the start is in the result), with exit code -1 and `lost: true`, so the model is told the run
 * failed and may have had effects instead of the run being silently repeated.
 */
export function lostRunResult(detail?: string): RuntimeResult {
  return {
    stdout: '',
    stderr: '',
    exitCode: -1,
    timedOut: false,
    durationMs: 0,
    stdoutTruncated: false,
    stderrTruncated: false,
    lost: true,
    warnings: detail === undefined ? [lostRunWarning] : [lostRunWarning, detail],
  };
}
