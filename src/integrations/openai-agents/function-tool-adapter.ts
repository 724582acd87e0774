import { type FunctionTool, type RunContext, tool } from '@openai/agents';
import { z } from 'zod';
import {
  type AskForApproval,
  approvalNeverNeeded,
  approvalRequestOf,
  approveToolCall,
  askThroughDecide,
  deniedToolResult,
  pendingApproval,
} from '../../approvals/approval-gate.js';
import type { ApprovalEvent, ApprovalOptions } from '../../approvals/approval-types.js';
import { SkillboxConfigError } from '../../config/config-error.js';
import { callQueueOf } from '../../state/session-call-queue.js';
import { beginStateTransaction } from '../../state/state-transaction.js';
import { inToolSpan } from '../../telemetry/tool-span.js';
import { inputObjectSchema } from '../../tools/skill-tool-support.js';
import type { ToolContext, ToolDefinition } from '../../tools/types.js';
import { bindingOfRunContext, type SkillRunBinding } from './skill-run-binding.js';

/** A function tool of any context and parameters: skill tools and pool tools sit in one list. */
// biome-ignore lint/suspicious/noExplicitAny: the SDK's own tool lists are typed this way (Agent.tools).
export type AnyFunctionTool = FunctionTool<any, any, any>;

/** How one agent's copy of a skill tool is wired: its agent, approvals, and whether the current step offers it. */
export interface FunctionToolSettings {
  /** Disclosure state is kept per agent: the agent these tools serve. */
  agentName: string;
  approval?: ApprovalOptions;
  /** True when the agent's current step offers the tool (the tool pool and allowed-tools decide). */
  isActive(binding: SkillRunBinding, toolName: string): Promise<boolean>;
}

/** The tool context of a call: the session's ids and state, this agent, the run's visibility context. */
export function toolContextOf(
  binding: SkillRunBinding,
  agentName: string,
  toolCallId: string | undefined,
): ToolContext {
  const { key } = binding.session;
  return {
    sessionId: key.sessionId,
    userId: key.userId,
    ...(key.appName !== undefined ? { appName: key.appName } : {}),
    agentName,
    ...(toolCallId !== undefined ? { toolCallId } : {}),
    state: binding.session.state,
    ...(binding.skillContext !== undefined ? { skillContext: binding.skillContext } : {}),
  };
}

/** The JSON schema the SDK sends for a skill tool: the zod object behind its input, as the model should fill it. */
// biome-ignore lint/suspicious/noExplicitAny: any tool definition, whatever its input type.
function parametersOf(definition: ToolDefinition<any, any>) {
  const object = inputObjectSchema(definition.inputSchema);
  if (object === undefined)
    throw new SkillboxConfigError('createAgentSkills', [
      {
        option: 'executionTools',
        problem: `holds tool "${definition.name}", whose input schema is not a zod object, which a function tool cannot describe`,
      },
    ]);
  const { $schema: _dialect, ...schema } = z.toJSONSchema(object, { io: 'input' }) as Record<string, unknown>;
  return {
    ...schema,
    type: 'object' as const,
    properties: (schema.properties ?? {}) as Record<string, never>,
    required: (schema.required ?? []) as string[],
    additionalProperties: true as const,
  };
}

function recordApprovalEvent(binding: SkillRunBinding, approval: ApprovalOptions | undefined, event: ApprovalEvent) {
  binding.session.recordEvent({ author: event.author, type: event.type, content: event.content });
  approval?.onEvent?.(event);
}

/**
 * One skillbox tool as the SDK's function tool, for one agent. A call runs against a transaction
 * over the session's state and commits only when it returns (the session stores the change with
 * its next items); calls that may write state run one at a time per session and agent. Input is
 * sent as a non-strict JSON schema and checked by the tool itself, so a mistake comes back as the
 * same model-readable message every integration gives, through `errorFunction`.
 */
export function toAgentsFunctionTool(
  // biome-ignore lint/suspicious/noExplicitAny: a definition's input and output types vary per tool.
  definition: ToolDefinition<any, any>,
  settings: FunctionToolSettings,
): AnyFunctionTool {
  const { agentName, approval } = settings;
  const gated = approval !== undefined && !approvalNeverNeeded(approval, definition);
  const where = `tool "${definition.name}"`;

  const approve = async (binding: SkillRunBinding, runContext: RunContext<unknown>, input: unknown, callId: string) => {
    const approvedBySdk: AskForApproval = async () =>
      runContext.isToolApproved({ toolName: definition.name, callId }) === true
        ? { decision: 'allow-once', source: 'openai-agents-approval' }
        : { unanswered: 'it became subject to approval after the SDK checked it; call it again to be asked' };
    const verdict = await approveToolCall({
      options: approval,
      definition,
      input,
      context: toolContextOf(binding, agentName, callId),
      ask: approval?.decide !== undefined ? askThroughDecide(approval.decide) : approvedBySdk,
      // approveToolCall tells the policy's onEvent itself: only the session's log here.
      record: (event) => recordApprovalEvent(binding, undefined, event),
      requestRecorded: approval?.decide === undefined,
    });
    if (verdict.run && Object.keys(verdict.remembered).length > 0) {
      // An allow-always is remembered in the session's state like any other write.
      const transaction = beginStateTransaction(binding.session.state);
      for (const [key, value] of Object.entries(verdict.remembered)) transaction.view.set(key, value);
      binding.session.recordStateChange(transaction.commit());
    }
    return verdict;
  };

  return tool({
    name: definition.name,
    description: definition.description,
    parameters: parametersOf(definition),
    strict: false,
    isEnabled: async ({ runContext }) =>
      settings.isActive(bindingOfRunContext(runContext.context, where), definition.name),
    // Without an in-process decider, the SDK interrupts the run and the application answers.
    ...(gated && approval?.decide === undefined
      ? {
          needsApproval: async (runContext: RunContext<unknown>, input: unknown, callId?: string) => {
            const binding = bindingOfRunContext(runContext.context, where);
            const context = toolContextOf(binding, agentName, callId);
            // A call the tool refuses outright (a skill not loaded) runs into that refusal instead of a question.
            const pending = await pendingApproval(approval, definition, input, context).catch(() => undefined);
            if (pending === undefined || pending.pending.length === 0) return false;
            if (callId !== undefined && runContext.isToolApproved({ toolName: definition.name, callId }) !== undefined)
              return true;
            const request = approvalRequestOf(definition, input, context, pending.description, pending.subjects);
            recordApprovalEvent(binding, approval, { type: 'approval-request', author: agentName, content: request });
            return true;
          },
        }
      : {}),
    // The tool's own message is what the model can act on (which field, which skill, what to call instead).
    errorFunction: (_context, error) => (error instanceof Error ? error.message : String(error)),
    execute: async (input, runContext, details) => {
      const binding = bindingOfRunContext(runContext?.context, where);
      const toolCallId = details?.toolCall?.callId;
      const { session } = binding;
      const run = () =>
        inToolSpan(
          {
            toolName: definition.name,
            toolCallId: toolCallId ?? '',
            description: definition.description,
            conversationId: session.key.sessionId,
          },
          async () => {
            if (gated) {
              const verdict = await approve(binding, runContext as RunContext<unknown>, input, toolCallId ?? '');
              if (!verdict.run) return deniedToolResult(verdict);
            }
            const transaction = beginStateTransaction(session.state);
            const output = await definition.execute(input, {
              ...toolContextOf(binding, agentName, toolCallId),
              state: transaction.view,
              ...(details?.signal !== undefined ? { abortSignal: details.signal } : {}),
            });
            const delta = transaction.commit();
            if (Object.keys(delta).length > 0) session.recordStateChange(delta);
            return output;
          },
        );
      // A tool that never writes state (reads, script runs) need not wait for the others.
      if (definition.writesState === false) return run();
      return callQueueOf(session.state).run(session.key.sessionId, agentName, run);
    },
  }) as AnyFunctionTool;
}
