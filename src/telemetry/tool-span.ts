import { inSpan, type SkillboxSpan, type TraceContext } from './in-span.js';

/** The facts of one tool call that the OpenTelemetry GenAI semantic conventions record. */
export interface ToolCallFacts {
  toolName: string;
  toolCallId?: string | undefined;
  description?: string | undefined;
  /** The conversation (skillbox session) the call belongs to. */
  conversationId?: string | undefined;
  /** The turn's `invoke_agent` span context, whose child the tool span is (else the active context). */
  parent?: TraceContext;
}

/**
 * Runs one skill tool call in an `execute_tool {tool name}` span with the GenAI attributes
 * (`gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, ...), so trace viewers
 * that know those conventions show skill tool calls like any other tool call.
 */
export function inToolSpan<T>(facts: ToolCallFacts, work: (span: SkillboxSpan) => Promise<T>): Promise<T> {
  const attributes: Record<string, string> = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': facts.toolName,
    'gen_ai.tool.type': 'function',
  };
  if (facts.toolCallId !== undefined && facts.toolCallId !== '') attributes['gen_ai.tool.call.id'] = facts.toolCallId;
  if (facts.description !== undefined) attributes['gen_ai.tool.description'] = facts.description;
  if (facts.conversationId !== undefined) attributes['gen_ai.conversation.id'] = facts.conversationId;
  return inSpan(`execute_tool ${facts.toolName}`, attributes, work, facts.parent);
}
