import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { RuntimeResult } from '../runtime-types.js';

/**
 * Wraps one run in a `workspace.run` span (the Go seed's name). The API is a no-op until the
 * application installs an OpenTelemetry SDK, so this costs nothing by default.
 */
export async function withRunSpan(kind: string, run: () => Promise<RuntimeResult>): Promise<RuntimeResult> {
  return trace.getTracer('skillbox').startActiveSpan('workspace.run', async (span) => {
    span.setAttribute('skillbox.runtime.kind', kind);
    try {
      const result = await run();
      span.setAttributes({
        'skillbox.run.exit_code': result.exitCode,
        'skillbox.run.timed_out': result.timedOut,
        'skillbox.run.duration_ms': result.durationMs,
        'skillbox.run.stdout_truncated': result.stdoutTruncated,
        'skillbox.run.stderr_truncated': result.stderrTruncated,
      });
      if (result.exitCode !== 0) span.setStatus({ code: SpanStatusCode.ERROR, message: `exit code ${result.exitCode}` });
      return result;
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}
