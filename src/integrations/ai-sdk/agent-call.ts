import { type LanguageModel, type PrepareStepFunction, stepCountIs, type Tool } from 'ai';
import type { ApprovalEvent } from '../../approvals/approval-types.js';
import { SkillboxConfigError } from '../../config/config-error.js';
import type { DeclaredSkillLoad } from '../../disclosure/declared-loads.js';
import type { SkillContext, SkillRepository } from '../../repository/types.js';
import { appendTurnWithRetry } from '../../sessions/append-turn-with-retry.js';
import type { NewSessionEvent, Session, SessionKey, SessionStore } from '../../sessions/session-store.js';
import { createInMemoryStateView, type InMemoryStateView } from '../../state/in-memory-state-view.js';
import type { StateDelta } from '../../state/state-delta.js';
import type { SkillContextCallOptions } from './ai-sdk-versions.js';
import type { SkillAgentCallSettings, SkillAgentOptions } from './skill-agent.js';
import { createSkillCallContext, type PreparedStep, type SkillCallContext } from './skill-call-context.js';
import type { SkillToolkit } from './skill-toolkit.js';
import type { TurnDurability } from './turn-durability.js';
import type { VisibleSkillToolkits } from './visible-skill-toolkits.js';

/** What every call of one agent shares, fixed when `createSkillAgent` checked its options. */
export interface AgentSetup {
  readonly options: SkillAgentOptions;
  readonly name: string;
  readonly appName: string | undefined;
  readonly model: LanguageModel;
  readonly sessions: SessionStore;
  /** The agent's repository: filtered when a filter is set. */
  readonly repository: SkillRepository;
  readonly toolkits: VisibleSkillToolkits;
  /** The caller's own tools, active in every step after the skill and pool tools. */
  readonly customTools: Readonly<Record<string, Tool>>;
  readonly callSettings: SkillAgentCallSettings;
  readonly maxSteps: number;
  readonly maxAppendAttempts: number;
}

/** What one call (a `run` turn or an AI SDK call) asks for. */
export interface AgentCallRequest {
  key: SessionKey;
  skillContext?: SkillContext | undefined;
  skillLoads?: readonly DeclaredSkillLoad[] | undefined;
  /** Read the session's events too (a turn replays them); an AI SDK call brings its own messages. */
  readEvents: boolean;
  /** What only a `run` turn listens to or carries. */
  hooks?: Pick<SkillCallContext, 'onStateChange' | 'decideApproval' | 'traceContext'>;
  /** A durable runner's seams (skillbox/restate); absent for a plain call. */
  durability?: TurnDurability | undefined;
}

/** What the agent sets in each model call. */
export type AgentModelSettings = {
  model: LanguageModel;
  tools: Record<string, Tool>;
  prepareStep: PrepareStepFunction<Record<string, Tool>>;
  stopWhen: ReturnType<typeof stepCountIs>;
} & SkillContextCallOptions;

/** What a call reads of its session. */
export type SessionAsRead = Pick<Session, 'version' | 'state' | 'events'>;

/** One call's toolkit, session, state and context, and the settings to give the AI SDK. */
export interface AgentCall {
  readonly key: SessionKey;
  readonly toolkit: SkillToolkit;
  /** The session as read (an empty one at version 0 when it does not exist yet). */
  readonly session: SessionAsRead;
  readonly state: InMemoryStateView;
  readonly context: SkillCallContext;
  /** The tools active in the current step, the caller's own tools included. */
  activeTools(): readonly string[];
  /** What each step's preparation decided, by step number (stored with the step's first message). */
  readonly preparedSteps: readonly (PreparedStep | undefined)[];
  /** How many tools of the caller's own every step adds. */
  readonly customToolCount: number;
  /** Approval requests and decisions of the call, as the events they are stored as. */
  readonly approvalEvents: NewSessionEvent[];
  /** What the agent sets in a `streamText` / `generateText` call: model, tools, steps and context (not `callSettings`). */
  modelSettings(): AgentModelSettings;
  /** The state change of the call so far: keys whose value differs from the session as read. */
  stateDelta(): StateDelta;
  /** Appends `events` after the version read, retried on top of other writers. Returns the new version. */
  append(events: NewSessionEvent[]): Promise<number>;
}

/** Reads the session and builds the context of one call: one set-up for `run` and for `asAiSdkAgent`. */
export async function openAgentCall(setup: AgentSetup, request: AgentCallRequest): Promise<AgentCall> {
  const { key } = request;
  const toolkit = await setup.toolkits.forContext(request.skillContext);
  // A session is read, not created: a call that stores nothing must not leave an empty session.
  const { durability } = request;
  const read = async (): Promise<SessionAsRead> =>
    (await (request.readEvents ? setup.sessions.getSession(key) : setup.sessions.getSession(key, { limit: 0 }))) ?? {
      version: 0,
      state: {},
      events: [],
    };
  const session = durability === undefined ? await read() : await durability.readSession(read);
  const state = createInMemoryStateView(session.state);
  const approvalEvents: NewSessionEvent[] = [];
  let activeTools: readonly string[] = [];
  const preparedSteps: PreparedStep[] = [];
  const customToolNames = Object.keys(setup.customTools);
  // The workspace follows app, user and session: users may send the same session id.
  const context = createSkillCallContext({
    sessionId: key.sessionId,
    userId: key.userId,
    ...(setup.appName !== undefined ? { appName: setup.appName } : {}),
    agentName: setup.name,
    state,
    ...(request.skillContext !== undefined ? { skillContext: request.skillContext } : {}),
    ...(request.skillLoads !== undefined ? { skillLoads: request.skillLoads } : {}),
    ...request.hooks,
    ...(durability !== undefined
      ? {
          journalToolCall: durability.journalToolCall,
          ...(durability.runIdPrefix !== undefined ? { runIdPrefix: durability.runIdPrefix } : {}),
        }
      : {}),
    onStepPrepared: (prepared) => {
      activeTools = [...prepared.activeTools, ...customToolNames];
      preparedSteps[prepared.stepNumber] = prepared;
    },
    onApprovalEvent: (event) => approvalEvents.push(approvalSessionEvent(event)),
  });
  const prepareStep = withCustomTools(toolkit.prepareStep, customToolNames);
  const model = durability === undefined ? setup.model : durability.wrapModel(setup.model);
  const tools = { ...toolkit.tools, ...setup.customTools };
  return {
    key,
    toolkit,
    session,
    state,
    context,
    approvalEvents,
    activeTools: () => activeTools,
    preparedSteps,
    customToolCount: customToolNames.length,
    modelSettings: () => ({
      model,
      tools: durability === undefined ? tools : durability.wrapTools(tools),
      prepareStep,
      stopWhen: stepCountIs(setup.maxSteps),
      ...toolkit.contextOptions(context),
    }),
    stateDelta: () => stateDifference(session.state, state.snapshot()),
    append: (events) =>
      durability === undefined
        ? appendTurnWithRetry(setup.sessions, key, events, session.version, setup.maxAppendAttempts)
        : durability.appendTurn(events, session.version),
  };
}

/** The toolkit's step preparation with the caller's own tools added to every step's active tools. */
export function withCustomTools(
  prepareStep: PrepareStepFunction<Record<string, Tool>>,
  customToolNames: readonly string[],
): PrepareStepFunction<Record<string, Tool>> {
  if (customToolNames.length === 0) return prepareStep;
  return async (step) => {
    const prepared = await prepareStep(step);
    return prepared?.activeTools === undefined
      ? prepared
      : { ...prepared, activeTools: [...prepared.activeTools, ...customToolNames] };
  };
}

/** A session key from a caller's ids; a clear error naming the argument and `component` otherwise. */
export function sessionKeyOf(
  ids: { userId?: unknown; sessionId?: unknown },
  appName: string | undefined,
  component: string,
  prefix = '',
): SessionKey {
  return {
    userId: requireId(ids.userId, `${prefix}userId`, component),
    sessionId: requireId(ids.sessionId, `${prefix}sessionId`, component),
    ...(appName !== undefined ? { appName } : {}),
  };
}

function requireId(value: unknown, argument: string, component: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new SkillboxConfigError(component, [
      { option: argument, problem: `must be a non-empty string; got ${JSON.stringify(value)}` },
    ]);
  return value;
}

/** Keys whose value differs between two states; `null` for a removed key. */
function stateDifference(before: Record<string, string>, after: ReadonlyMap<string, string>): StateDelta {
  const delta: StateDelta = {};
  for (const key of Object.keys(before)) if (!after.has(key)) delta[key] = null;
  for (const [key, value] of after) if (before[key] !== value) delta[key] = value;
  return delta;
}

/** An approval request or decision as the session event it is stored as. */
function approvalSessionEvent(event: ApprovalEvent): NewSessionEvent {
  return { author: event.author, type: event.type, content: event.content };
}
