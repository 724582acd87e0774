import type { ModelMessage } from 'ai';
import type { ApprovalEvent } from '../../approvals/approval-types.js';

type Part = {
  type?: unknown;
  toolCallId?: unknown;
  toolName?: unknown;
  approvalId?: unknown;
  approved?: unknown;
  reason?: unknown;
};

/**
 * The decision events of the AI SDK approval responses that deny a call of one of `toolNames`, in
 * the messages the application sent after the model's last message. A denied call never reaches the
 * tool (the SDK answers the model itself), so the toolkit records the denial when the answer
 * arrives, before the first step of the call. Only the newest answers count: a transcript that is
 * sent again with every call (`useChat`) would otherwise record each denial again.
 */
export function deniedApprovalEvents(messages: readonly ModelMessage[], toolNames: readonly string[]): ApprovalEvent[] {
  const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant');
  if (lastAssistant === -1) return [];
  const partsOf = (list: readonly ModelMessage[]): Part[] =>
    list.flatMap((message) => (Array.isArray(message.content) ? (message.content as Part[]) : []));
  const earlier = partsOf(messages.slice(0, lastAssistant + 1));
  const events: ApprovalEvent[] = [];
  for (const part of partsOf(messages.slice(lastAssistant + 1))) {
    if (part.type !== 'tool-approval-response' || part.approved !== false) continue;
    const request = earlier.find(
      (entry) => entry.type === 'tool-approval-request' && entry.approvalId === part.approvalId,
    );
    const call = earlier.find((entry) => entry.type === 'tool-call' && entry.toolCallId === request?.toolCallId);
    if (call === undefined || typeof call.toolName !== 'string' || !toolNames.includes(call.toolName)) continue;
    const toolCallId = String(call.toolCallId);
    events.push({
      type: 'approval-decision',
      author: 'user',
      content: {
        requestId: `approval-${toolCallId}`,
        tool: call.toolName,
        toolCallId,
        decision: 'deny',
        source: 'ai-sdk-response',
        // What the request would have remembered is in its request event; a denial remembers nothing.
        remembers: [],
        ...(typeof part.reason === 'string' ? { reason: part.reason } : {}),
      },
    });
  }
  return events;
}
