import { ToolMessage } from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { Command } from '@langchain/langgraph';
import { createInMemoryStateView } from '../../state/in-memory-state-view.js';
import type { ToolContext, ToolDefinition } from '../../tools/types.js';
import { skillboxStateField, skillboxStateOf, withDelta } from './graph-state.js';
import type { StepStateWrites } from './step-state-writes.js';

/** What a tool call needs besides its input: who it runs for, from the LangChain runtime. */
export type ToolContextOf = (runtime: LangChainToolRuntime) => Omit<ToolContext, 'state' | 'toolCallId'>;

/** The parts of LangChain's `ToolRuntime` the adapter reads. */
export interface LangChainToolRuntime {
  state?: unknown;
  toolCallId?: string;
  configurable?: Record<string, unknown>;
  config?: { configurable?: Record<string, unknown>; signal?: AbortSignal };
  context?: unknown;
  signal?: AbortSignal;
}

/** A tool's output as the text of its ToolMessage: text as it is, anything else as JSON. */
function outputText(output: unknown): string {
  return typeof output === 'string' ? output : JSON.stringify(output);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One skillbox tool as a LangChain tool (zod schema, description, name). A call reads the
 * disclosure state from the graph state and returns a `Command` that writes the changed state back
 * with the ToolMessage, so the checkpointer stores both in the same checkpoint. A call that throws
 * (a SkillToolError the model can act on, a refused command) answers with an error ToolMessage
 * and writes nothing, as the tool contract promises.
 */
export function toLangChainTool(
  // biome-ignore lint/suspicious/noExplicitAny: definitions of different input types share one list.
  definition: ToolDefinition<any, any>,
  settings: { contextOf: ToolContextOf; writes: StepStateWrites },
): StructuredToolInterface {
  return tool(
    async (input: unknown, runtime: LangChainToolRuntime) => {
      const toolCallId = runtime.toolCallId ?? '';
      const snapshot = skillboxStateOf((runtime.state ?? {}) as Record<string, unknown>);
      const base = settings.contextOf(runtime);
      const signal = runtime.signal ?? runtime.config?.signal;
      const call = async (values: Record<string, string>) => {
        const view = createInMemoryStateView(values);
        try {
          const output = await definition.execute(input, {
            ...base,
            toolCallId,
            state: view,
            ...(signal !== undefined ? { abortSignal: signal } : {}),
          });
          return {
            message: new ToolMessage({ content: outputText(output), tool_call_id: toolCallId }),
            delta: view.delta(),
          };
        } catch (error) {
          const message = new ToolMessage({ content: errorText(error), tool_call_id: toolCallId, status: 'error' });
          return { message, delta: {} };
        }
      };
      // A tool that never writes state (script runs, reads) need not wait for the others.
      if (definition.writesState === false) return (await call(snapshot.values)).message;
      return settings.writes.run<ToolMessage | Command>(snapshot, base.agentName, async (state) => {
        const { message, delta } = await call(state.values);
        const next = withDelta(state, delta, state.invocation);
        if (next === state) return { result: message, state };
        return { result: new Command({ update: { [skillboxStateField]: next, messages: [message] } }), state: next };
      });
    },
    { name: definition.name, description: definition.description, schema: definition.inputSchema as never },
  ) as unknown as StructuredToolInterface;
}
