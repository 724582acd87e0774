import { inSpan } from '../telemetry/in-span.js';
import type { RuntimeResult } from './runtime-types.js';

/**
 * Wraps one run in a `workspace.run` span (docs/workspaces.md lists the span names) that records how the run ended.
 * The API is a no-op until the application installs an OpenTelemetry SDK.
 */
export function withRunSpan(kind: string, run: () => Promise<RuntimeResult>): Promise<RuntimeResult> {
  return inSpan('workspace.run', { 'skillbox.runtime.kind': kind }, async (span) => {
    const result = await run();
    span.setAttributes({
      'skillbox.run.exit_code': result.exitCode,
      'skillbox.run.timed_out': result.timedOut,
      'skillbox.run.duration_ms': result.durationMs,
      'skillbox.run.stdout_truncated': result.stdoutTruncated,
      'skillbox.run.stderr_truncated': result.stderrTruncated,
    });
    if (result.exitCode !== 0) span.setError(`exit code ${result.exitCode}`);
    return result;
  });
}
