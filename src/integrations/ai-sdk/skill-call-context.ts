import type { ApprovalEvent, ApprovalOptions } from '../../approvals/approval-types.js';
import type { DeclaredSkillLoad } from '../../disclosure/declared-loads.js';
import type { MaterializationMode } from '../../disclosure/materialize-request.js';
import type { SkillContext } from '../../repository/types.js';
import type { StateDelta } from '../../state/state-delta.js';
import type { StateView } from '../../state/state-view.js';
import { MissingSkillCallContextError } from './errors.js';
import type { TurnDurability } from './turn-durability.js';

/** One committed state change: what a tool call (or the turn bookkeeping) wrote. */
export interface StateChange {
  /** `tool` for a tool call's writes; `turn` for load-mode resets, declared loads and eviction before a model call. */
  source: 'tool' | 'turn';
  toolCallId?: string;
  toolName?: string;
  delta: StateDelta;
}

/**
 * What the skill tools and `prepareStep` need to know about the call they serve. It travels in the
 * AI SDK call (ai 7 `toolsContext`, ai 6 `experimental_context`; see ai-sdk-versions.ts), so one `tools` object and one
 * `prepareStep` serve any number of
 * sessions at once.
 */
export interface SkillCallContext {
  sessionId: string;
  /** The session's user and app: with the session id they pick the workspace, so users sharing a session id never share one. */
  userId?: string;
  appName?: string;
  /** Disclosure state is kept per agent (default `assistant`). */
  agentName: string;
  /** The session's state. Tool calls write into it only when they succeed. */
  state: StateView;
  /** Visibility context (user, tenant, roles) for the repository's filter. */
  skillContext?: SkillContext;
  /**
   * Skills the caller loads for this turn without a model tool call, validated as one batch before
   * the first model request (see docs/ai-sdk.md).
   */
  skillLoads?: readonly DeclaredSkillLoad[];
  /** Told about every committed state change, in order (the runner persists and streams them). */
  onStateChange?: (change: StateChange) => void;
  /** Told which tools each step makes active, before the model call. */
  onStepPrepared?: (prepared: PreparedStep) => void;
  /** Told every approval request and decision (docs/approvals.md); the runner stores them as session events. */
  onApprovalEvent?: (event: ApprovalEvent) => void;
  /**
   * Answers this call's approval requests in-process, instead of the toolkit's `approval.decide`
   * or the AI SDK's tool-approval flow.
   */
  decideApproval?: ApprovalOptions['decide'];
  /**
   * The OpenTelemetry context of the turn's `invoke_agent` span (SkillAgent.run sets it): the
   * `execute_tool` spans of this call's tools are its children. Opaque, so the type needs no
   * `@opentelemetry/api`.
   */
  traceContext?: unknown;
  /** A durable turn's journal of tool calls (skillbox/restate): each call's work runs once. */
  journalToolCall?: TurnDurability['journalToolCall'];
  /** Prefix of the run ids of this call's commands (a durable turn's invocation id). */
  runIdPrefix?: string;
}

/** What `prepareStep` decided for one step: the active tools, the loaded skills and the pool tools they named that are missing. */
export interface PreparedStep {
  stepNumber: number;
  /** The tools the model sees in this step. */
  activeTools: string[];
  /** Loaded skills, least recently touched first. */
  loadedSkills: string[];
  /** Tools loaded skills name that the pool does not hold. */
  missingTools: Array<{ skill: string; tool: string }>;
  /** Where the loaded skills were put in this step's request. */
  materialize: MaterializationMode;
}

/** The agent name used when none is given (`assistant`); state keys are scoped by it. */
export const defaultAgentName = 'assistant';

/** The per-call context the tools and `prepareStep` read: which session and agent, the state view, and optional callbacks. */
export function createSkillCallContext(options: {
  sessionId: string;
  userId?: string;
  appName?: string;
  state: StateView;
  agentName?: string;
  skillContext?: SkillContext;
  skillLoads?: readonly DeclaredSkillLoad[];
  onStateChange?: (change: StateChange) => void;
  onStepPrepared?: (prepared: PreparedStep) => void;
  onApprovalEvent?: (event: ApprovalEvent) => void;
  decideApproval?: ApprovalOptions['decide'];
  traceContext?: unknown;
  journalToolCall?: TurnDurability['journalToolCall'];
  runIdPrefix?: string;
}): SkillCallContext {
  const context: SkillCallContext = {
    sessionId: options.sessionId,
    agentName: options.agentName ?? defaultAgentName,
    state: options.state,
  };
  if (options.userId !== undefined) context.userId = options.userId;
  if (options.appName !== undefined) context.appName = options.appName;
  if (options.skillContext !== undefined) context.skillContext = options.skillContext;
  if (options.traceContext !== undefined) context.traceContext = options.traceContext;
  if (options.skillLoads !== undefined) context.skillLoads = options.skillLoads;
  if (options.onStateChange !== undefined) context.onStateChange = options.onStateChange;
  if (options.onStepPrepared !== undefined) context.onStepPrepared = options.onStepPrepared;
  if (options.onApprovalEvent !== undefined) context.onApprovalEvent = options.onApprovalEvent;
  if (options.decideApproval !== undefined) context.decideApproval = options.decideApproval;
  if (options.journalToolCall !== undefined) context.journalToolCall = options.journalToolCall;
  if (options.runIdPrefix !== undefined) context.runIdPrefix = options.runIdPrefix;
  return context;
}

/** True when a value has the shape of a skill call context (session id, agent name, state view). */
export function isSkillCallContext(value: unknown): value is SkillCallContext {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<SkillCallContext>;
  return (
    typeof candidate.sessionId === 'string' &&
    typeof candidate.agentName === 'string' &&
    typeof candidate.state === 'object' &&
    candidate.state !== null &&
    typeof candidate.state.get === 'function' &&
    typeof candidate.state.set === 'function' &&
    typeof candidate.state.keys === 'function'
  );
}

/** The context of one call: the one the call carries, else the fallback, else a clear error naming `where`. */
export function resolveSkillCallContext(
  fromCall: unknown,
  fallback: SkillCallContext | (() => SkillCallContext) | undefined,
  where: string,
): SkillCallContext {
  if (isSkillCallContext(fromCall)) return fromCall;
  const fixed = typeof fallback === 'function' ? fallback() : fallback;
  if (fixed) return fixed;
  throw new MissingSkillCallContextError(where);
}
