import { type Tool, tool } from 'ai';
import { callQueueOf } from '../../state/session-call-queue.js';
import { beginStateTransaction } from '../../state/state-transaction.js';
import { inToolSpan } from '../../telemetry/tool-span.js';
import type { ToolDefinition } from '../../tools/types.js';
import { contextOfToolCall } from './ai-sdk-versions.js';
import { SkillAgentConfigError } from './errors.js';
import { resolveSkillCallContext, type SkillCallContext } from './skill-call-context.js';

/** Options of `toAiSdkTool` / `toAiSdkTools`: the skill call context, when the call does not carry one. */
export interface ToolAdapterOptions {
  /**
   * A fixed context (or a function returning the current one) for callers that pass none. A
   * context the call carries (ai 7 `toolsContext`, ai 6 `experimental_context`) wins.
   */
  context?: SkillCallContext | (() => SkillCallContext);
}

/**
 * Adapts one framework-neutral tool to an AI SDK tool. A call runs against a transaction over the
 * session state: its writes are committed only when it returns. A thrown error (SkillToolError for
 * mistakes the model can fix) reaches the model as the tool's error result, the AI SDK's own
 * error path, and leaves the state untouched. Calls of tools that may write state run one at a
 * time per state, session and agent (the AI SDK starts a step's calls together), so each sees the
 * writes of the one before.
 */
// biome-ignore lint/suspicious/noExplicitAny: a definition's input and output types vary per tool; the AI SDK's Tool is untyped here too.
export function toAiSdkTool(definition: ToolDefinition<any, any>, options: ToolAdapterOptions = {}): Tool {
  const adapted: Tool = {
    description: definition.description,
    inputSchema: definition.inputSchema,
    execute: async (input: unknown, executionOptions) => {
      const { toolCallId, abortSignal } = executionOptions;
      const context = resolveSkillCallContext(
        contextOfToolCall(executionOptions),
        options.context,
        `tool "${definition.name}"`,
      );
      const facts = {
        toolName: definition.name,
        toolCallId,
        description: definition.description,
        conversationId: context.sessionId,
      };
      const run = () =>
        inToolSpan(facts, async () => {
          const transaction = beginStateTransaction(context.state);
          const output = await definition.execute(input, {
            sessionId: context.sessionId,
            ...(context.userId !== undefined ? { userId: context.userId } : {}),
            ...(context.appName !== undefined ? { appName: context.appName } : {}),
            agentName: context.agentName,
            toolCallId,
            state: transaction.view,
            ...(context.skillContext !== undefined ? { skillContext: context.skillContext } : {}),
            ...(abortSignal !== undefined ? { abortSignal } : {}),
          });
          const delta = transaction.commit();
          if (Object.keys(delta).length > 0)
            context.onStateChange?.({ source: 'tool', toolCallId, toolName: definition.name, delta });
          return output;
        });
      // A tool that never writes state (reads, script runs) need not wait for the others.
      if (definition.writesState === false) return run();
      return callQueueOf(context.state).run(context.sessionId, context.agentName, run);
    },
  };
  return tool(adapted);
}

/** Adapts a list of neutral tools to the `tools` record `generateText` / `streamText` take. */
export function toAiSdkTools(
  // biome-ignore lint/suspicious/noExplicitAny: as above, a list of tools with different input types.
  definitions: readonly ToolDefinition<any, any>[],
  options: ToolAdapterOptions = {},
): Record<string, Tool> {
  const tools: Record<string, Tool> = {};
  for (const definition of definitions) {
    if (definition.name in tools)
      throw new SkillAgentConfigError('toAiSdkTools', [
        { option: 'definitions', problem: `holds two tools named "${definition.name}"` },
      ]);
    tools[definition.name] = toAiSdkTool(definition, options);
  }
  return tools;
}
