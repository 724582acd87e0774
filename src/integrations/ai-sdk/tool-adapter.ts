import { type Tool, tool } from 'ai';
import {
  type ApprovalVerdict,
  type AskForApproval,
  approvalNeverNeeded,
  approvalRequestOf,
  approveToolCall,
  askThroughDecide,
  deniedToolResult,
  pendingApproval,
} from '../../approvals/approval-gate.js';
import type { ApprovalOptions } from '../../approvals/approval-types.js';
import { SkillboxConfigError } from '../../config/config-error.js';
import { PendingStateWrites } from '../../state/pending-state-writes.js';
import { callQueueOf } from '../../state/session-call-queue.js';
import { beginStateTransaction } from '../../state/state-transaction.js';
import { inToolSpan } from '../../telemetry/tool-span.js';
import type { ToolContext, ToolDefinition } from '../../tools/types.js';
import { contextOfToolCall } from './ai-sdk-versions.js';
import { resolveSkillCallContext, type SkillCallContext } from './skill-call-context.js';

/** Options of `toAiSdkTool` / `toAiSdkTools`: the skill call context, when the call does not carry one. */
export interface ToolAdapterOptions {
  /**
   * A fixed context (or a function returning the current one) for callers that pass none. A
   * context the call carries (ai 7 `toolsContext`, ai 6 `experimental_context`) wins.
   */
  context?: SkillCallContext | (() => SkillCallContext);
  /**
   * Calls that need a person's approval (docs/approvals.md). With `decide`, it is asked in-process
   * and a denied call returns a result saying so; without it, the tool's `needsApproval` makes the
   * AI SDK emit a `tool-approval-request` the application answers.
   */
  approval?: ApprovalOptions;
}

function toolContextOf(context: SkillCallContext, toolCallId: string | undefined): ToolContext {
  return {
    sessionId: context.sessionId,
    ...(context.userId !== undefined ? { userId: context.userId } : {}),
    ...(context.appName !== undefined ? { appName: context.appName } : {}),
    agentName: context.agentName,
    ...(toolCallId !== undefined ? { toolCallId } : {}),
    ...(context.runIdPrefix !== undefined ? { runIdPrefix: context.runIdPrefix } : {}),
    state: context.state,
    ...(context.skillContext !== undefined ? { skillContext: context.skillContext } : {}),
  };
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
  const approval = options.approval;
  const gated = approval !== undefined && !approvalNeverNeeded(approval, definition);
  // The call's own decider (SkillAgent.run sets one) wins over the toolkit's.
  const decideOf = (context: SkillCallContext) => context.decideApproval ?? approval?.decide;
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
        ...(context.traceContext !== undefined ? { parent: context.traceContext } : {}),
      };
      const run = () =>
        inToolSpan(facts, async () => {
          if (gated) {
            const verdict = await approve(context, input, toolCallId, executionOptions.messages);
            if (!verdict.run) return deniedToolResult(verdict);
          }
          const work = async () => {
            const transaction = beginStateTransaction(context.state);
            const output = await definition.execute(input, {
              ...toolContextOf(context, toolCallId),
              state: transaction.view,
              ...(abortSignal !== undefined ? { abortSignal } : {}),
            });
            return { output, delta: transaction.commit() };
          };
          // A durable turn runs the work once; a replay re-applies the recorded state change.
          const { output, delta } =
            context.journalToolCall === undefined
              ? await work()
              : await context.journalToolCall({ toolCallId, toolName: definition.name, input }, work, (recorded) =>
                  new PendingStateWrites(context.state, recorded).commit(),
                );
          if (Object.keys(delta).length > 0)
            context.onStateChange?.({ source: 'tool', toolCallId, toolName: definition.name, delta });
          return output;
        });
      // A tool that never writes state (reads, script runs) need not wait for the others.
      if (definition.writesState === false) return run();
      return callQueueOf(context.state).run(context.sessionId, context.agentName, run);
    },
  };

  /**
   * In-process: asks `decide`. Through the AI SDK: the call runs only when the messages hold the
   * application's approval of this very call. `needsApproval` may have let a call through that
   * needs approval by the time it runs (a skill loaded by a call of the same step became
   * reachable), and such a call is refused, not run unasked.
   */
  const approve = async (
    context: SkillCallContext,
    input: unknown,
    toolCallId: string,
    messages: unknown,
  ): Promise<ApprovalVerdict> => {
    const decide = decideOf(context);
    const askInProcess = decide === undefined ? undefined : askThroughDecide(decide);
    const approvedThroughSdk: AskForApproval = async () =>
      approvalAnswerOf(messages, toolCallId)?.approved === true
        ? { decision: 'allow-once', source: 'ai-sdk-response' }
        : { unanswered: 'it became subject to approval after the AI SDK checked it; call it again to be asked' };
    const verdict = await approveToolCall({
      options: approval,
      definition,
      input,
      context: toolContextOf(context, toolCallId),
      ask: askInProcess ?? approvedThroughSdk,
      ...(context.onApprovalEvent !== undefined ? { record: context.onApprovalEvent } : {}),
      // needsApproval recorded the request of a call the application answered.
      requestRecorded: askInProcess === undefined && approvalAnswerOf(messages, toolCallId) !== undefined,
    });
    if (verdict.run && Object.keys(verdict.remembered).length > 0)
      context.onStateChange?.({ source: 'tool', toolCallId, toolName: definition.name, delta: verdict.remembered });
    return verdict;
  };
  // Without an in-process decider, the AI SDK asks the application before the call runs.
  if (gated && approval?.decide === undefined) adapted.needsApproval = needsApprovalOf(definition, approval, options);
  return tool(adapted);
}

/** The AI SDK's `needsApproval` of a tool: true for a call waiting on a person, recorded once as a request. */
function needsApprovalOf(
  // biome-ignore lint/suspicious/noExplicitAny: as in toAiSdkTool.
  definition: ToolDefinition<any, any>,
  approval: ApprovalOptions,
  options: ToolAdapterOptions,
): NonNullable<Tool['needsApproval']> {
  return async (input: unknown, callOptions: { toolCallId: string; messages?: unknown }) => {
    const context = resolveSkillCallContext(
      contextOfToolCall(callOptions),
      options.context,
      `tool "${definition.name}"`,
    );
    // Asked in-process when the tool runs.
    if ((context.decideApproval ?? approval.decide) !== undefined) return false;
    const toolContext = toolContextOf(context, callOptions.toolCallId);
    // A call the tool refuses outright (a skill not loaded) runs into that refusal instead of a question.
    const pending = await pendingApproval(approval, definition, input, toolContext).catch(() => undefined);
    if (pending === undefined || pending.pending.length === 0) return false;
    // The SDK asks again when the application sends its answer; the request was recorded the first time.
    if (approvalAnswerOf(callOptions.messages, callOptions.toolCallId) !== undefined) return true;
    const request = approvalRequestOf(definition, input, toolContext, pending.description, pending.subjects);
    const event = { type: 'approval-request' as const, author: context.agentName, content: request };
    context.onApprovalEvent?.(event);
    approval.onEvent?.(event);
    return true;
  };
}

type MessagePart = { type?: unknown; toolCallId?: unknown; approvalId?: unknown; approved?: unknown; reason?: unknown };

function partsOf(messages: unknown): MessagePart[] {
  if (!Array.isArray(messages)) return [];
  return messages.flatMap((message: { content?: unknown }) =>
    Array.isArray(message?.content) ? (message.content as MessagePart[]) : [],
  );
}

/**
 * The application's answer to the AI SDK approval request of this tool call, when `messages` hold
 * that request: `approved` is undefined while the request is still open.
 */
function approvalAnswerOf(
  messages: unknown,
  toolCallId: string,
): { approved: boolean | undefined; reason?: unknown } | undefined {
  const parts = partsOf(messages);
  const request = parts.find((part) => part?.type === 'tool-approval-request' && part.toolCallId === toolCallId);
  if (request === undefined) return undefined;
  const response = parts.find(
    (part) => part?.type === 'tool-approval-response' && part.approvalId === request.approvalId,
  );
  if (response === undefined) return { approved: undefined };
  return { approved: response.approved === true, reason: response.reason };
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
      throw new SkillboxConfigError('toAiSdkTools', [
        { option: 'definitions', problem: `holds two tools named "${definition.name}"` },
      ]);
    tools[definition.name] = toAiSdkTool(definition, options);
  }
  return tools;
}
