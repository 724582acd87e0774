import type { ModelMessage } from 'ai';

/** How the AI SDK words a call to a tool that is not active in the step (NoSuchToolError). */
const sdkUnavailablePrefix = 'Model tried to call unavailable tool ';

/** ai 7 writes the error's `toString()` into the tool result, so its text starts with the class name. */
const sdkErrorNamePrefix = 'AI_NoSuchToolError: ';

/** True for the SDK's report of a call to a tool that was not active (a NoSuchToolError or its message, as ai 6 or ai 7 words it). */
export function isUnavailableToolError(error: unknown): boolean {
  const text = typeof error === 'string' ? error : error instanceof Error ? error.message : '';
  return text.startsWith(sdkUnavailablePrefix) || text.startsWith(`${sdkErrorNamePrefix}${sdkUnavailablePrefix}`);
}

/** Tool names whose calls failed because the tool was not active (as the SDK reported them in the history). */
export function findUnavailableToolCalls(messages: readonly ModelMessage[]): Set<string> {
  const names = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result' && part.output.type === 'error-text' && isUnavailableToolError(part.output.value))
        names.add(part.toolName);
    }
  }
  return names;
}

/**
 * Replaces the SDK's generic "unavailable tool" results with explanations. Returns a new array and
 * leaves the input as it was; messages without such results are returned as the same objects.
 */
export function explainUnavailableToolCalls(
  messages: readonly ModelMessage[],
  explanations: ReadonlyMap<string, string>,
): ModelMessage[] {
  return messages.map((message) => {
    if (message.role !== 'tool') return message;
    let changed = false;
    const content = message.content.map((part) => {
      if (
        part.type !== 'tool-result' ||
        part.output.type !== 'error-text' ||
        !isUnavailableToolError(part.output.value)
      )
        return part;
      const explanation = explanations.get(part.toolName);
      if (explanation === undefined) return part;
      changed = true;
      return { ...part, output: { type: 'error-text' as const, value: explanation } };
    });
    return changed ? { ...message, content } : message;
  });
}
