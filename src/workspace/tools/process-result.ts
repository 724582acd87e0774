import type { RuntimeProcessOutput } from '../../runtime/runtime-process.js';
import type { BackgroundProcessRecord } from '../workspace-processes.js';
import type { LimitHit } from './run-result.js';

/**
 * What `workspace_exec` with `background: true`, `workspace_write_stdin`, `workspace_poll` and
 * `workspace_kill` return: the output written since the previous call about this process, and,
 * once it has ended, how it ended.
 */
export interface ProcessPollResult {
  process_id: string;
  /** `running` until the process has ended and its last output was returned. */
  status: 'running' | 'exited';
  /** New stdout / stderr since the previous call about this process. */
  stdout: string;
  stderr: string;
  /** Set once exited: as for a run (128 + n for signal n; 137 when killed). */
  exit_code?: number;
  /** Set once exited: true when it was killed for reaching its lifetime (the call's `timeout`). */
  timed_out?: boolean;
  /** Set once exited: true when `workspace_kill` (or the end of the session's workspace) ended it. */
  killed?: boolean;
  /** Set once exited: seconds it ran. */
  duration_ms?: number;
  /** Bytes of unread stdout / stderr dropped since the previous call because the buffer was full (absent when none). */
  stdout_dropped_bytes?: number;
  stderr_dropped_bytes?: number;
  warnings: string[];
  /** `stdout` / `stderr` when unread output was dropped; resource caps reached; absent when none. */
  limits_hit?: LimitHit[];
}

/** Shapes one read of a background process for the model. */
export function shapeProcessResult(
  record: BackgroundProcessRecord,
  output: RuntimeProcessOutput,
  bufferBytes: number,
  warnings: readonly string[] = [],
): ProcessPollResult {
  const notes = [...warnings];
  const limitsHit = new Set<LimitHit>();
  for (const [stream, dropped] of [
    ['stdout', output.stdoutDroppedBytes],
    ['stderr', output.stderrDroppedBytes],
  ] as const) {
    if (dropped <= 0) continue;
    limitsHit.add(stream);
    notes.push(
      `${dropped} bytes of ${stream} dropped: at most ${bufferBytes} unread bytes are kept (the newest); poll more often or write less`,
    );
  }
  const exit = output.exit;
  if (exit !== undefined) {
    notes.push(...record.notes, ...exit.warnings);
    for (const limit of [...record.limitsHit, ...(exit.limitsHit ?? [])]) limitsHit.add(limit);
  }
  return {
    process_id: record.id,
    status: exit === undefined ? 'running' : 'exited',
    stdout: output.stdout,
    stderr: output.stderr,
    ...(exit === undefined
      ? {}
      : {
          exit_code: exit.exitCode,
          timed_out: exit.timedOut,
          killed: exit.killed,
          duration_ms: Math.round(exit.durationMs),
        }),
    ...(output.stdoutDroppedBytes > 0 ? { stdout_dropped_bytes: output.stdoutDroppedBytes } : {}),
    ...(output.stderrDroppedBytes > 0 ? { stderr_dropped_bytes: output.stderrDroppedBytes } : {}),
    warnings: notes,
    ...(limitsHit.size > 0 ? { limits_hit: [...limitsHit] } : {}),
  };
}
