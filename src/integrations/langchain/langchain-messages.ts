import { type BaseMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import type { ModelMessage, ToolResultOutput } from '../../disclosure/model-messages.js';

// LangChain's messages seen as the disclosure layer's neutral messages and back. Materialising
// reads only tool calls (their ids, names and inputs) and tool results, and writes only the
// system text and the text of `skill_load` / `skill_select_docs` results; everything else is a
// placeholder here and the caller's own message object is sent unchanged.

/** The parts of a LangChain message the conversion reads, whatever its class. */
interface LangChainMessageFields {
  type?: string;
  getType?: () => string;
  content: unknown;
  tool_calls?: Array<{ id?: string; name: string; args: unknown }>;
  tool_call_id?: string;
  status?: string;
}

function typeOf(message: BaseMessage): string {
  const fields = message as unknown as LangChainMessageFields;
  return fields.getType?.() ?? fields.type ?? '';
}

/** A message's text: a string, or its text blocks joined. */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: { type?: unknown; text?: unknown }) =>
      block?.type === 'text' && typeof block.text === 'string' ? block.text : '',
    )
    .join('');
}

/**
 * The conversation as neutral messages, one for one, behind a leading system placeholder holding
 * `instructions` (the skills' own text, '' for none): what materialising adds lands in it.
 */
export function toNeutralMessages(messages: readonly BaseMessage[], instructions: string): ModelMessage[] {
  const toolNames = new Map<string, string>();
  const neutral: ModelMessage[] = [{ role: 'system', content: instructions }];
  for (const message of messages) {
    const fields = message as unknown as LangChainMessageFields;
    const type = typeOf(message);
    if (type === 'ai') {
      const calls = (fields.tool_calls ?? []).filter((call) => call.id !== undefined);
      for (const call of calls) toolNames.set(call.id!, call.name);
      neutral.push({
        role: 'assistant',
        content: calls.map((call) => ({
          type: 'tool-call',
          toolCallId: call.id!,
          toolName: call.name,
          input: call.args,
        })),
      });
    } else if (type === 'tool' && fields.tool_call_id !== undefined) {
      const text = messageText(fields.content);
      const output: ToolResultOutput =
        fields.status === 'error' ? { type: 'error-text', value: text } : { type: 'text', value: text };
      neutral.push({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: fields.tool_call_id,
            // The name of the call the result answers, as the model asked for it.
            toolName: toolNames.get(fields.tool_call_id) ?? '',
            output,
          },
        ],
      });
    } else {
      // A system message in the history stays the caller's and must not receive the catalog.
      neutral.push({ role: 'user', content: '' });
    }
  }
  return neutral;
}

/** The request after materialising: the system text to add and the messages with their rewritten tool results. */
export interface MaterializedLangChainRequest {
  /** Text to append to the caller's system message ('' when there is none to add). */
  systemText: string;
  messages: BaseMessage[];
}

/**
 * Maps the materialised neutral request back onto the caller's messages: leading system messages
 * become one text to append to the system message, and a tool result whose text changed becomes
 * a copy of the caller's ToolMessage with that text. Other messages are the caller's objects.
 */
export function fromNeutralMessages(
  original: readonly BaseMessage[],
  materialized: readonly ModelMessage[],
): MaterializedLangChainRequest {
  const leading = materialized.findIndex((message) => message.role !== 'system');
  const systemCount = leading === -1 ? materialized.length : leading;
  const systemText = materialized
    .slice(0, systemCount)
    .map((message) => (message.role === 'system' ? message.content : ''))
    .filter((text) => text !== '')
    .join('\n\n');
  const rest = materialized.slice(systemCount);
  const messages = original.map((message, index) => {
    const neutral = rest[index];
    if (neutral?.role !== 'tool' || typeOf(message) !== 'tool') return message;
    const part = neutral.content[0];
    if (part?.type !== 'tool-result' || part.output.type !== 'text') return message;
    const fields = message as unknown as LangChainMessageFields;
    if (part.output.value === messageText(fields.content)) return message;
    const tool = message as ToolMessage;
    return new ToolMessage({
      content: part.output.value,
      tool_call_id: tool.tool_call_id,
      ...(tool.name !== undefined ? { name: tool.name } : {}),
      ...(tool.id !== undefined ? { id: tool.id } : {}),
      ...(tool.status !== undefined ? { status: tool.status } : {}),
    });
  });
  return { systemText, messages };
}

/** The caller's system message with skillbox's text after it; the caller's blocks stay as they were. */
export function appendToSystemMessage(system: SystemMessage | undefined, text: string): SystemMessage | undefined {
  if (text === '') return system;
  if (system === undefined || (messageText(system.content) === '' && typeof system.content === 'string'))
    return new SystemMessage(text);
  return system.concat(text);
}
