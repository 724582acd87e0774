import type { ModelMessage } from 'ai';

/**
 * The last `maxMessages` messages of a history, moved forward to the first user message in them:
 * a window that opened on a tool result (or on the assistant call it answers) would hand the
 * provider a result without its call, which providers refuse. A window with no user message in it
 * is empty.
 */
export function windowHistory(messages: readonly ModelMessage[], maxMessages: number): ModelMessage[] {
  if (messages.length <= maxMessages) return [...messages];
  const window = messages.slice(messages.length - maxMessages);
  const start = window.findIndex((message) => message.role === 'user');
  return start === -1 ? [] : window.slice(start);
}
