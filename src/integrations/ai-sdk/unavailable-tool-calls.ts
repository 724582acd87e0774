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

/** A tool the model called that is not active now, and the skills whose loading would provide it. */
export interface UnavailableToolFacts {
  toolName: string;
  /** Visible skills whose `Tools:` section names it, by name. */
  providedBy: readonly string[];
  /**
   * Loaded skills whose `allowed-tools` leave it out, when that is why it is inactive now (the
   * `enforceAllowedTools` option). Loading or selecting cannot help then, so the text says so
   * instead of sending the model to `skill_load` a skill it already has.
   */
  withheldBy?: readonly string[];
}

/**
 * What the model reads instead of the SDK's generic message: why, and what to call instead. It
 * depends on the repository and, only when `allowed-tools` withholds the tool, on which loaded
 * skills do; so the explanation of an old call stays byte-identical from request to request (a
 * stable, cacheable prefix) until that changes.
 */
export function unavailableToolMessage(facts: UnavailableToolFacts): string {
  const head = `tool "${facts.toolName}" is not available`;
  if (facts.withheldBy !== undefined && facts.withheldBy.length > 0) {
    const names = facts.withheldBy.map((name) => `"${name}"`).join(', ');
    const one = facts.withheldBy.length === 1;
    return (
      `${head}: the loaded skill${one ? '' : 's'} ${names} ${one ? 'restricts' : 'restrict'} the tools to ${one ? 'its' : 'their'} allowed-tools, which do not include it. ` +
      `Loading or selecting skills will not make it available while ${one ? 'that skill is' : 'those skills are'} loaded; continue with the tools you have.`
    );
  }
  if (facts.providedBy.length === 0) {
    return `${head}: no skill lists it in its Tools: section, so it cannot be used in this conversation. Continue with the tools you have.`;
  }
  const names = facts.providedBy.map((name) => `"${name}"`).join(', ');
  return (
    `${head}: it is active only while a skill that lists it in its Tools: section is loaded (${names}) and the tool is selected. ` +
    `Call skill_load with one of these skills first; if the skill is already loaded, call skill_select_tools with {"skill": <skill>, "tools": ["${facts.toolName}"], "mode": "add"}. ` +
    `A loaded skill's allowed-tools can also keep it out.`
  );
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
