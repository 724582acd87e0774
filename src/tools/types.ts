import type { z } from 'zod';
import type { SkillContext } from '../repository/types.js';
import type { StateView } from '../state/state-view.js';

/** Everything a tool may know about the call it serves. */
export interface ToolContext {
  sessionId: string;
  /** The user the session belongs to: with `appName` and `sessionId`, it picks the workspace (and its artifacts). */
  userId?: string;
  appName?: string;
  /** The agent the call belongs to: disclosure state is kept per agent. */
  agentName: string;
  toolCallId?: string;
  state: StateView;
  /** Visibility context (user, tenant, role) for the repository's filter. */
  skillContext?: SkillContext;
  abortSignal?: AbortSignal;
}

/**
 * A model-facing tool, independent of any agent framework. Integrations (AI SDK, MCP) adapt it.
 * `execute` throws SkillToolError for mistakes the model can correct; the message says what was
 * wrong and what to call instead.
 */
export interface ToolDefinition<Input = unknown, Output = unknown> {
  name: string;
  description: string;
  inputSchema: z.ZodType<Input>;
  /**
   * `false` promises that `execute` never calls `context.state.set`, so integrations may run its
   * calls alongside others. Absent or `true`: calls on one session's agent run one at a time, each
   * seeing the previous call's writes.
   */
  writesState?: boolean;
  execute(input: Input, context: ToolContext): Promise<Output>;
}
