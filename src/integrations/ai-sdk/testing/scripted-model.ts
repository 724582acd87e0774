import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';

/** One scripted model answer: text, tool calls, or both. */
export interface ScriptedStep {
  text?: string;
  toolCalls?: Array<{ name: string; input: Record<string, unknown>; id?: string }>;
  inputTokens?: number;
  /** Of `inputTokens`, how many the provider read from its prompt cache (0 when not given). */
  cachedInputTokens?: number;
  outputTokens?: number;
}

/** A scripted model and the options of every call it received. */
export interface ScriptedModel {
  model: MockLanguageModelV3;
  /** Every call's options (prompt, tools, toolChoice), streaming and non-streaming, in order. */
  calls: LanguageModelV3CallOptions[];
}

function usageOf(step: ScriptedStep): LanguageModelV3Usage {
  const input = step.inputTokens ?? 10;
  const output = step.outputTokens ?? 5;
  return {
    inputTokens: {
      total: input,
      noCache: input - (step.cachedInputTokens ?? 0),
      cacheRead: step.cachedInputTokens ?? 0,
      cacheWrite: 0,
    },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

function contentOf(step: ScriptedStep, callIndex: number): LanguageModelV3Content[] {
  const content: LanguageModelV3Content[] = [];
  if (step.text !== undefined) content.push({ type: 'text', text: step.text });
  (step.toolCalls ?? []).forEach((call, index) => {
    content.push({
      type: 'tool-call',
      toolCallId: call.id ?? `call-${callIndex + 1}-${index + 1}`,
      toolName: call.name,
      input: JSON.stringify(call.input),
    });
  });
  return content;
}

/**
 * The AI SDK's mock model answering from a script, one step per model call, recording what the
 * model received. A call past the end of the script throws, so a test that loops too far fails.
 */
export function createScriptedModel(steps: readonly ScriptedStep[]): ScriptedModel {
  const calls: LanguageModelV3CallOptions[] = [];
  const next = (options: LanguageModelV3CallOptions) => {
    const index = calls.length;
    calls.push(options);
    const step = steps[index];
    if (step === undefined) throw new Error(`scripted model: no step scripted for model call ${index + 1}`);
    const content = contentOf(step, index);
    const finishReason = {
      unified: content.some((part) => part.type === 'tool-call') ? ('tool-calls' as const) : ('stop' as const),
      raw: undefined,
    };
    return { step, content, finishReason, index };
  };
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      const { step, content, finishReason } = next(options);
      return { content, finishReason, usage: usageOf(step), warnings: [] };
    },
    doStream: async (options) => {
      const { step, content, finishReason, index } = next(options);
      const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      for (const part of content) {
        if (part.type === 'text') {
          const id = `text-${index + 1}`;
          parts.push({ type: 'text-start', id });
          // Two deltas so consumers see streaming, not one blob.
          const half = Math.ceil(part.text.length / 2);
          for (const delta of [part.text.slice(0, half), part.text.slice(half)])
            if (delta !== '') parts.push({ type: 'text-delta', id, delta });
          parts.push({ type: 'text-end', id });
        } else if (part.type === 'tool-call') {
          parts.push(part);
        }
      }
      parts.push({ type: 'finish', finishReason, usage: usageOf(step) });
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      });
      return { stream };
    },
  });
  return { model, calls };
}
