import { SpanStatusCode, trace, type Span } from '@opentelemetry/api';

const tracer = trace.getTracer('skillbox');

/** Runs `work` inside a span named `name`, recording failures (docs/workspaces.md lists the span names). */
export async function inSpan<T>(name: string, attributes: Record<string, string | number | boolean>, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}
