import type { ModelMessage } from 'ai';

/** How the AI SDK words a call to a tool that is not active in the step (NoSuchToolError). */
const sdkUnavailablePrefix = 'Model tried to call unavailable tool ';

export interface UnavailableToolFacts {
  toolName: string;
  /** Loaded skills whose `Tools:` section names it but whose selection leaves it out. */
  deselectedBy: string[];
  /** Skills not loaded whose `Tools:` section names it. */
  providedBy: string[];
  /** A loaded skill lists it but `allowed-tools` enforcement withholds it. */
  withheld: boolean;
}

/** What the model reads instead of the SDK's generic message: why, and what to call instead. */
export function unavailableToolMessage(facts: UnavailableToolFacts): string {
  const head = `tool "${facts.toolName}" is not available now`;
  if (facts.withheld) {
    return `${head}: the allowed-tools of the loaded skills do not include it. Use the tools the loaded skills allow, or load a skill that allows it with skill_load.`;
  }
  const first = facts.deselectedBy[0];
  if (first !== undefined) {
    return `${head}: skill "${first}" lists it, but its tool selection leaves it out. Call skill_select_tools with {"skill": "${first}", "tools": ["${facts.toolName}"], "mode": "add"} first.`;
  }
  if (facts.providedBy.length > 0) {
    const names = facts.providedBy.map((name) => `"${name}"`).join(', ');
    return `${head}: it becomes available after loading a skill that lists it in its Tools: section (${names}). Call skill_load with one of them first.`;
  }
  return `${head}: no skill lists it in its Tools: section, so it cannot be used in this conversation. Continue with the tools you have.`;
}

/** Tool names whose calls failed because the tool was not active (as the SDK reported them in the history). */
export function findUnavailableToolCalls(messages: readonly ModelMessage[]): Set<string> {
  const names = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result' && part.output.type === 'error-text' && part.output.value.startsWith(sdkUnavailablePrefix)) names.add(part.toolName);
    }
  }
  return names;
}

/**
 * Replaces the SDK's generic "unavailable tool" results with explanations. Returns a new array and
 * leaves the input as it was; messages without such results are returned as the same objects.
 */
export function explainUnavailableToolCalls(messages: readonly ModelMessage[], explanations: ReadonlyMap<string, string>): ModelMessage[] {
  return messages.map((message) => {
    if (message.role !== 'tool') return message;
    let changed = false;
    const content = message.content.map((part) => {
      if (part.type !== 'tool-result' || part.output.type !== 'error-text' || !part.output.value.startsWith(sdkUnavailablePrefix)) return part;
      const explanation = explanations.get(part.toolName);
      if (explanation === undefined) return part;
      changed = true;
      return { ...part, output: { type: 'error-text' as const, value: explanation } };
    });
    return changed ? { ...message, content } : message;
  });
}
