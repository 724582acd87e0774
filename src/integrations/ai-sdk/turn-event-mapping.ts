import type { LanguageModelUsage, TextStreamPart, Tool } from 'ai';
import { addUsage, type SkillAgentEvent, type TokenUsage } from './agent-events.js';
import { clientToolOutput } from './client-tool-output.js';
import { TurnAbortedError } from './errors.js';

/**
 * The events a turn holds back: a tool may run (and change state) before the stream hands over its
 * call, since the SDK starts it as soon as the call is parsed. Its state change waits for its
 * tool-call event, so a client sees call, change, result in that order whatever the scheduling.
 */
export class HeldTurnEvents {
  private readonly pending: SkillAgentEvent[] = [];
  private readonly announced = new Set<string>();

  push(event: SkillAgentEvent): void {
    this.pending.push(event);
  }

  /** The tool call was streamed: its state changes may follow. */
  announce(toolCallId: string): void {
    this.announced.add(toolCallId);
  }

  /** The events that may go out now, in order; the others stay. */
  ready(): SkillAgentEvent[] {
    const now: SkillAgentEvent[] = [];
    const later: SkillAgentEvent[] = [];
    for (const event of this.pending.splice(0)) {
      const waits =
        event.type === 'state-change' && event.toolCallId !== undefined && !this.announced.has(event.toolCallId);
      (waits ? later : now).push(event);
    }
    this.pending.push(...later);
    return now;
  }

  /** Every held event: the stream ended. */
  all(): SkillAgentEvent[] {
    return this.pending.splice(0);
  }
}

/** What the mapping reads and advances while a turn streams. */
export interface TurnProgress {
  stepNumber: number;
  usage: TokenUsage;
  /** Each finished step's own usage, by step number. */
  stepUsages: TokenUsage[];
}

/** How the mapping reaches the turn around it. */
export interface TurnStreamSettings {
  held: HeldTurnEvents;
  progress: TurnProgress;
  /** The tools active in the current step (set by its prepareStep). */
  activeTools: () => readonly string[];
  /** The text the model was shown for a failed tool call. */
  describeToolError: (toolName: string, error: unknown) => Promise<string>;
  abortSignal?: AbortSignal;
}

/**
 * The AI SDK's stream of one turn as `SkillAgentEvent`s, with the held state changes in their place.
 * An aborted or failed stream throws (`TurnAbortedError`, or the stream's error) after the events
 * before it; the held events are then the caller's to send.
 */
export async function* turnEventsOfStream(
  parts: AsyncIterable<TextStreamPart<Record<string, Tool>>>,
  settings: TurnStreamSettings,
): AsyncGenerator<SkillAgentEvent> {
  const { held, progress } = settings;
  for await (const part of parts) {
    yield* held.ready();
    const stepNumber = progress.stepNumber;
    switch (part.type) {
      case 'text-delta':
        yield { type: 'text-delta', stepNumber, text: part.text };
        break;
      case 'tool-call':
        yield {
          type: 'tool-call',
          stepNumber,
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: part.input,
        };
        held.announce(part.toolCallId);
        yield* held.ready();
        break;
      case 'tool-result':
        yield {
          type: 'tool-result',
          stepNumber,
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          output: clientToolOutput(part.toolName, part.input, part.output),
        };
        break;
      case 'tool-error': {
        const error = await settings.describeToolError(part.toolName, part.error);
        yield { type: 'tool-result', stepNumber, toolCallId: part.toolCallId, toolName: part.toolName, error };
        break;
      }
      case 'finish-step': {
        const stepUsage = usageOf(part.usage);
        progress.usage = addUsage(progress.usage, stepUsage);
        progress.stepUsages[stepNumber] = stepUsage;
        yield {
          type: 'step-finish',
          stepNumber,
          finishReason: part.finishReason,
          usage: stepUsage,
          activeTools: [...settings.activeTools()],
        };
        progress.stepNumber += 1;
        break;
      }
      case 'abort':
        throw new TurnAbortedError(settings.abortSignal?.reason);
      case 'error':
        throw part.error;
      default:
        break;
    }
  }
}

function usageOf(usage: LanguageModelUsage): TokenUsage {
  const input = usage.inputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  return {
    inputTokens: input,
    outputTokens: output,
    totalTokens: usage.totalTokens ?? input + output,
    cachedInputTokens: usage.inputTokenDetails?.cacheReadTokens ?? 0,
  };
}
