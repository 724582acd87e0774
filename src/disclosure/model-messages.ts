/**
 * A framework-neutral model request, shaped like the AI SDK's `ModelMessage` (v5/v6) so that
 * adapting one to the other is (nearly) the identity. Parts skillbox does not interpret (images,
 * files, reasoning, approvals) are carried through untouched.
 */

export type JsonValue = null | string | number | boolean | JsonValue[] | { [key: string]: JsonValue | undefined };

/** Provider-specific options, passed through as given. */
export type ProviderOptions = Record<string, Record<string, unknown>>;

export interface TextPart {
  type: 'text';
  text: string;
  providerOptions?: ProviderOptions;
}

export interface ImagePart {
  type: 'image';
  image: unknown;
  mediaType?: string;
  providerOptions?: ProviderOptions;
}

export interface FilePart {
  type: 'file';
  data: unknown;
  filename?: string;
  mediaType: string;
  providerOptions?: ProviderOptions;
}

export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  providerOptions?: ProviderOptions;
}

export interface ToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
  providerOptions?: ProviderOptions;
  providerExecuted?: boolean;
}

export type ToolResultOutput =
  | { type: 'text'; value: string; providerOptions?: ProviderOptions }
  | { type: 'json'; value: JsonValue; providerOptions?: ProviderOptions }
  | { type: 'error-text'; value: string; providerOptions?: ProviderOptions }
  | { type: 'error-json'; value: JsonValue; providerOptions?: ProviderOptions }
  | { type: 'execution-denied'; reason?: string; providerOptions?: ProviderOptions }
  | {
      type: 'content';
      value: Array<
        { type: 'text'; text: string; providerOptions?: ProviderOptions } | { type: string; [key: string]: unknown }
      >;
    };

export interface ToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: ToolResultOutput;
  providerOptions?: ProviderOptions;
}

export interface ToolApprovalRequest {
  type: 'tool-approval-request';
  approvalId: string;
  toolCallId: string;
}

export interface ToolApprovalResponse {
  type: 'tool-approval-response';
  approvalId: string;
  approved: boolean;
  reason?: string;
  providerExecuted?: boolean;
}

export interface SystemModelMessage {
  role: 'system';
  content: string;
  providerOptions?: ProviderOptions;
}

export interface UserModelMessage {
  role: 'user';
  content: string | Array<TextPart | ImagePart | FilePart>;
  providerOptions?: ProviderOptions;
}

export interface AssistantModelMessage {
  role: 'assistant';
  content: string | Array<TextPart | FilePart | ReasoningPart | ToolCallPart | ToolResultPart | ToolApprovalRequest>;
  providerOptions?: ProviderOptions;
}

export interface ToolModelMessage {
  role: 'tool';
  content: Array<ToolResultPart | ToolApprovalResponse>;
  providerOptions?: ProviderOptions;
}

/** A message of a model request: structurally the subset of the AI SDK `ModelMessage` skillbox reads. */
export type ModelMessage = SystemModelMessage | UserModelMessage | AssistantModelMessage | ToolModelMessage;

/** The text a tool result carries, as the model reads it (JSON outputs are serialised). */
export function toolResultText(output: ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'execution-denied':
      return output.reason ?? '';
    case 'content':
      return output.value
        .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
        .join('');
  }
}

/** The input of every tool call in the messages, by tool call id: how a tool result finds the call it answers. */
export function toolCallInputs(messages: readonly ModelMessage[]): Map<string, unknown> {
  const inputs = new Map<string, unknown>();
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) if (part.type === 'tool-call') inputs.set(part.toolCallId, part.input);
  }
  return inputs;
}
