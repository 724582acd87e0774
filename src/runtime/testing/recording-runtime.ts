import type { RuntimeCommand, RuntimeResult, WorkspaceRuntime } from '../runtime-types.js';

/** One command a {@link RecordingRuntime} passed on, with what came back (or what was thrown). */
export interface RecordedRun {
  command: RuntimeCommand;
  result?: RuntimeResult;
  error?: unknown;
}

/** A runtime that runs through another one and keeps every command and result, for assertions. */
export interface RecordingRuntime extends WorkspaceRuntime {
  /** Every `run` call in call order; an entry gets its result when the inner run settles. */
  readonly runs: readonly RecordedRun[];
}

/**
 * Wraps a real runtime (a `LocalRuntime` in most tests, a `SandboxRuntime` where isolation matters)
 * so a test can check which commands skill_run and workspace_exec issued: cwd, environment, stdin,
 * timeout. It changes nothing about how the command runs, so the test still exercises real
 * processes rather than a fake that always succeeds.
 */
export function createRecordingRuntime(inner: WorkspaceRuntime): RecordingRuntime {
  const runs: RecordedRun[] = [];
  return {
    kind: inner.kind,
    isolated: inner.isolated,
    runs,
    guestPath: (hostPath, workspaceRoot) => inner.guestPath(hostPath, workspaceRoot),
    files: (workspaceRoot) => inner.files(workspaceRoot),
    // Background processes pass straight through: only runs are recorded.
    ...(inner.start === undefined
      ? {}
      : { start: (command) => (inner.start as NonNullable<typeof inner.start>).call(inner, command) }),
    ...(inner.stopProcesses === undefined
      ? {}
      : {
          stopProcesses: (root) => (inner.stopProcesses as NonNullable<typeof inner.stopProcesses>).call(inner, root),
        }),
    async run(command) {
      const record: RecordedRun = { command: { ...command, env: { ...command.env } } };
      runs.push(record);
      try {
        record.result = await inner.run(command);
        return record.result;
      } catch (error) {
        record.error = error;
        throw error;
      }
    },
  };
}
