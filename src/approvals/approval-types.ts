import type { ToolCallDescription } from '../tools/types.js';

/**
 * A person's answer to an approval request: run this call, run it and every later call of the
 * same skill (or tool) in this session without asking, or do not run it.
 */
export type ApprovalDecision = 'allow-once' | 'allow-always' | 'deny';

/** The answers a person may give, in the order a prompt offers them. */
export const approvalDecisions: readonly ApprovalDecision[] = ['allow-once', 'allow-always', 'deny'];

/**
 * One tool call waiting for a person's approval: everything they need to decide, taken from the
 * call's input as the tool will use it, never from what the model says about it.
 */
export interface ApprovalRequest extends ToolCallDescription {
  /** A random id; the decision event names it. */
  id: string;
  /** The tool the model called (`skill_run`, `workspace_exec`, ...). */
  tool: string;
  toolCallId?: string;
  sessionId: string;
  userId?: string;
  appName?: string;
  agentName: string;
  /**
   * What an `allow-always` answer remembers for the rest of the session: `skill:<name>` for each
   * skill the call needs approval for, `tool:<name>` when the tool itself needs it.
   */
  remembers: string[];
  /** The tool's input as the model sent it, for tools that do not describe their calls. */
  input: unknown;
}

/** Who or what answered a request. */
export type ApprovalSource =
  /** The `decide` callback, a terminal prompt or an MCP client's elicitation. */
  | 'person'
  /** An earlier `allow-always` of this session. */
  | 'remembered'
  /** The AI SDK's tool-approval response, sent by the application in the next call. */
  | 'ai-sdk-response'
  /** The OpenAI Agents SDK's approval of the run's interruption (`result.state.approve(item)`), given by the application. */
  | 'openai-agents-approval'
  /** Nobody could be asked, or the asking failed: the call is denied. */
  | 'unanswered'
  /**
   * Refused before anyone was asked: the call would stage a skill that needs approval beside a
   * running background process that was not approved for it (`reason` names both).
   */
  | 'policy';

/** The decision on one request, as recorded. */
export interface ApprovalOutcome {
  requestId: string;
  tool: string;
  toolCallId?: string;
  decision: ApprovalDecision;
  source: ApprovalSource;
  /** What the decision covered (`skill:<name>`, `tool:<name>`). */
  remembers: string[];
  /** Why it was denied without a person's answer, when it was. */
  reason?: string;
}

/**
 * An approval as a session event: `approval-request` carries the request, `approval-decision` the
 * outcome. The AI SDK runner appends them to the session with the turn.
 */
export type ApprovalEvent =
  | { type: 'approval-request'; author: string; content: ApprovalRequest }
  | { type: 'approval-decision'; author: string; content: ApprovalOutcome };

/** The event types approvals add to a session's log. */
export const approvalEventTypes = ['approval-request', 'approval-decision'] as const;

/**
 * Which calls need a person's approval, and how to ask. See docs/approvals.md.
 *
 * A call needs approval when its tool is named in `tools`, or when it runs or stages a skill named
 * in `skills`: `skill_run` of that skill, and `workspace_exec` while that skill is loaded (its
 * scripts are then in the workspace).
 */
export interface ApprovalOptions {
  /** Tools whose every call needs approval, by name, or `all`. */
  tools?: readonly string[] | 'all';
  /** Skills whose scripts need approval to run, by name, or `all`. */
  skills?: readonly string[] | 'all';
  /**
   * Answers a request in-process (a prompt, a policy service). A throw or a value other than the
   * three decisions denies the call. Without it, the AI SDK integration asks through the SDK's own
   * tool-approval parts and the MCP server through elicitation.
   */
  decide?: (request: ApprovalRequest) => Promise<ApprovalDecision> | ApprovalDecision;
  /** Told every request and decision, in order, whatever integration runs the tools. */
  onEvent?: (event: ApprovalEvent) => void;
}
