import type { Context as OpenTelemetryContext } from '@opentelemetry/api';
import type { TraceContext } from './in-span.js';
import { loadOpenTelemetryApi } from './opentelemetry-api.js';

/** The facts of one agent turn that the OpenTelemetry GenAI semantic conventions record. */
export interface AgentTurnFacts {
  agentName: string;
  /** The conversation (skillbox session) of the turn. */
  conversationId: string;
  /** The model id the turn asks, when the model object says it. */
  requestModel?: string | undefined;
}

/** One turn's `invoke_agent` span, held open across the turn's model and tool calls. */
export interface AgentSpan {
  /** The context to parent the turn's tool spans in (see `inToolSpan`'s `parent`). */
  readonly traceContext: TraceContext;
  /** Records the error that ended the turn. */
  fail(error: unknown): void;
  end(): void;
}

const noAgentSpan: AgentSpan = { traceContext: undefined, fail() {}, end() {} };

/**
 * Starts an `invoke_agent {agent name}` span for one turn, with the GenAI attributes
 * (`gen_ai.operation.name`, `gen_ai.agent.name`, `gen_ai.conversation.id`, ...), so a trace viewer
 * shows a turn's tool calls under the turn instead of loose. A turn is an async generator, which a
 * callback-shaped `inSpan` cannot wrap: the span is started here and ended by the caller. Without
 * `@opentelemetry/api` it records nothing.
 */
export async function startAgentSpan(facts: AgentTurnFacts): Promise<AgentSpan> {
  const api = await loadOpenTelemetryApi();
  if (api === undefined) return noAgentSpan;
  const attributes: Record<string, string> = {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': facts.agentName,
    'gen_ai.conversation.id': facts.conversationId,
  };
  if (facts.requestModel !== undefined && facts.requestModel !== '')
    attributes['gen_ai.request.model'] = facts.requestModel;
  const parent = api.context.active();
  // INTERNAL: the agent runs in this process (the conventions use CLIENT for a remote agent service).
  const span = api.trace
    .getTracer('skillbox')
    .startSpan(`invoke_agent ${facts.agentName}`, { kind: api.SpanKind.INTERNAL, attributes }, parent);
  const traceContext: OpenTelemetryContext = api.trace.setSpan(parent, span);
  return {
    traceContext,
    fail(error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      span.recordException(failure);
      span.setAttribute('error.type', failure.name);
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: failure.message });
    },
    end: () => span.end(),
  };
}
