import type { Context as OpenTelemetryContext } from '@opentelemetry/api';
import { loadOpenTelemetryApi } from './opentelemetry-api.js';

/**
 * An OpenTelemetry `Context`, opaque so that skillbox's public types do not need
 * `@opentelemetry/api` (an optional peer) to compile.
 */
export type TraceContext = unknown;

export type SpanAttributeValue = string | number | boolean | string[];

/** What skillbox code may do to its span; the same calls are no-ops when nothing traces. */
export interface SkillboxSpan {
  setAttribute(key: string, value: SpanAttributeValue): void;
  setAttributes(attributes: Readonly<Record<string, SpanAttributeValue>>): void;
  /** Marks the span failed without an exception (a command that exited non-zero). */
  setError(message: string): void;
}

const noSpan: SkillboxSpan = { setAttribute() {}, setAttributes() {}, setError() {} };

/**
 * Runs `work` inside an active span named `name`, recording a thrown error (its class as
 * `error.type`, as the OpenTelemetry semantic conventions name it). Without `@opentelemetry/api`
 * installed, or without an SDK registered, `work` runs with a span that records nothing.
 */
export async function inSpan<T>(
  name: string,
  attributes: Readonly<Record<string, SpanAttributeValue>>,
  work: (span: SkillboxSpan) => Promise<T>,
  /**
   * The OpenTelemetry context to parent the span in (an `AgentSpan`'s `traceContext`), else the
   * active one. Passed by hand because the AI SDK runs tools where no context manager need follow.
   */
  parent?: TraceContext,
): Promise<T> {
  const api = await loadOpenTelemetryApi();
  if (api === undefined) return work(noSpan);
  const tracer = api.trace.getTracer('skillbox');
  return tracer.startActiveSpan(
    name,
    { kind: api.SpanKind.INTERNAL, attributes: { ...attributes } },
    (parent as OpenTelemetryContext | undefined) ?? api.context.active(),
    async (span): Promise<T> => {
      const handle: SkillboxSpan = {
        setAttribute: (key, value) => void span.setAttribute(key, value),
        setAttributes: (attributes) => void span.setAttributes({ ...attributes }),
        setError: (message) => void span.setStatus({ code: api.SpanStatusCode.ERROR, message }),
      };
      try {
        return await work(handle);
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        span.recordException(failure);
        span.setAttribute('error.type', failure.name);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: failure.message });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
