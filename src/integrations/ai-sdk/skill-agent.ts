import {
  type Agent,
  type CallSettings,
  generateText,
  type LanguageModel,
  type LanguageModelUsage,
  type ModelMessage,
  type PrepareStepFunction,
  stepCountIs,
  streamText,
  type Tool,
  type UserModelMessage,
} from 'ai';
import type { ApprovalEvent, ApprovalOptions } from '../../approvals/approval-types.js';
import { validateOptions } from '../../config/validate-options.js';
import type { DeclaredSkillLoad } from '../../disclosure/declared-loads.js';
import { loadedSkillNames } from '../../disclosure/loaded-skills.js';
import { includesNonModelInvocable } from '../../disclosure/model-invocable-skills.js';
import { unloadSkillDelta } from '../../disclosure/skill-transitions.js';
import { FilteredSkillRepository, type SkillVisibility } from '../../repository/filter-skills.js';
import type { SkillContext } from '../../repository/types.js';
import { createMemorySessionStore } from '../../sessions/memory-session-store.js';
import { SessionConflictError, SessionExistsError, SessionNotFoundError } from '../../sessions/session-errors.js';
import type { NewSessionEvent, SessionKey, SessionStore } from '../../sessions/session-store.js';
import { createInMemoryStateView } from '../../state/in-memory-state-view.js';
import { PendingStateWrites } from '../../state/pending-state-writes.js';
import type { StateDelta } from '../../state/state-delta.js';
import { startAgentSpan } from '../../telemetry/agent-span.js';
import type { WorkspaceManager } from '../../workspace/workspace-manager.js';
import { addUsage, emptyUsage, type SkillAgentEvent, type TokenUsage } from './agent-events.js';
import { responseMessagesAfterStep } from './ai-sdk-versions.js';
import { clientToolOutput } from './client-tool-output.js';
import { SkillAgentConfigError, TurnAbortedError } from './errors.js';
import { windowHistory } from './history-window.js';
import { planCompaction, type SkillCompactionPolicy } from './loaded-content-compaction.js';
import { skillAgentOptionsSchema } from './skill-agent-options-schema.js';
import {
  createSkillCallContext,
  defaultAgentName,
  type PreparedStep,
  type SkillCallContext,
} from './skill-call-context.js';
import { describeUnavailableTool } from './skill-prepare-step.js';
import { resolveRepositoryOption } from './skill-toolkit.js';
import { isUnavailableToolError } from './unavailable-tool-calls.js';
import { buildVisibleSkillToolkits, type VisibleSkillToolkitsOptions } from './visible-skill-toolkits.js';

/** Options of `createSkillAgent`: the model, the skills, sessions, runtime or workspaces, load mode and limits. */
export interface SkillAgentOptions extends Omit<VisibleSkillToolkitsOptions, 'context'> {
  model: LanguageModel;
  /** Hides skills per caller (user, tenant, roles from `run`'s `context`). */
  filter?: SkillVisibility;
  /** Conversations; default: a new in-memory store. */
  sessions?: SessionStore;
  /** Separates applications sharing one store; default `"default"`. */
  appName?: string;
  /** The agent's name: disclosure state and stored events are per agent. Default `assistant`. */
  name?: string;
  /** Most model calls in one turn (default 20). */
  maxSteps?: number;
  /** How often a turn is re-appended when another writer moved the session on (default 5). */
  maxAppendAttempts?: number;
  /**
   * Your own tools, active in every step whatever is loaded (unlike `toolPool` tools, which a
   * loaded skill must select; `enforceAllowedTools` does not narrow them). A name already used by
   * a skill tool or a pool tool is refused at construction.
   */
  tools?: Readonly<Record<string, Tool>>;
  /**
   * Passed to every `streamText` call as given: temperature, maxOutputTokens, topP, seed,
   * stopSequences, headers, maxRetries, providerOptions, experimental_telemetry, ... The run's
   * `abortSignal` is separate.
   */
  callSettings?: SkillAgentCallSettings;
  /** Replay only the last this-many stored messages, from the first user message among them. Default: all. */
  maxHistoryMessages?: number;
  /** Rewrites the replayed history before each run (after `maxHistoryMessages`): trim, summarise, redact. */
  prepareHistory?: (messages: ModelMessage[]) => ModelMessage[] | Promise<ModelMessage[]>;
  /**
   * Replace loaded skill content the conversation no longer uses with a short stub naming the
   * skill and how to load it again, and unload the skill: after `unusedTurns` turns without a tool
   * call naming it, or, once the replayed history is larger than `historyTokenBudget` tokens, for
   * every turn before the last. Off by default. Applied to the history `run` replays (after
   * `prepareHistory`); the stored session keeps everything. See docs/ai-sdk.md, "Compaction".
   */
  compaction?: SkillCompactionPolicy;
}

/** Model call settings the agent passes through to `streamText` / `generateText`. */
export type SkillAgentCallSettings = Omit<CallSettings, 'abortSignal'> & {
  providerOptions?: Parameters<typeof streamText>[0]['providerOptions'];
  /** The AI SDK's telemetry settings (`{ isEnabled, functionId, metadata, ... }`). */
  experimental_telemetry?: Parameters<typeof streamText>[0]['experimental_telemetry'];
};

/** What an AI SDK caller (`createAgentUIStreamResponse`, `agent.stream`) passes as `options` to a skill agent. */
export interface SkillAgentCallOptions {
  userId: string;
  sessionId: string;
  /** Visibility context for `filter` (user, tenant, roles). */
  context?: SkillContext;
  /** Skills to load for this call without a model tool call. */
  skillLoads?: readonly DeclaredSkillLoad[];
}

/** Input of `SkillAgent.run`: the user and session, the message, declared loads, the caller's context and an abort signal. */
export interface SkillAgentRunOptions {
  userId: string;
  sessionId: string;
  message: string | UserModelMessage;
  /** Skills to load for this turn without a model tool call (validated as one batch before the first request). */
  skillLoads?: readonly DeclaredSkillLoad[];
  /** Visibility context for `filter` (user, tenant, roles). */
  context?: SkillContext;
  abortSignal?: AbortSignal;
}

/** An agent made by `createSkillAgent`: `run` streams one turn of a session as typed events. */
export interface SkillAgent {
  readonly name: string;
  readonly sessions: SessionStore;
  /** Tools the agent registers: skill tools first, then pool tools. */
  readonly toolNames: string[];
  /** The workspace manager when the agent runs scripts. */
  readonly workspaces: WorkspaceManager | undefined;
  /**
   * Ends the agent's own resources: the workspace manager it made from `runtime` is closed (its
   * background processes stopped, the workspaces it created removed; `keepWorkspaces` leaves them
   * for a later agent on the same sessions). A manager passed as `workspaces` and the session store
   * are the caller's and stay open. Idempotent; `run` afterwards is refused.
   */
  close(options?: { keepWorkspaces?: boolean }): Promise<void>;
  /**
   * Runs one turn: the user message, as many model calls and tool calls as it takes, then the turn
   * is stored. One run is one turn for the load modes.
   */
  run(options: SkillAgentRunOptions): AsyncIterable<SkillAgentEvent>;
  /**
   * The same agent as an AI SDK `Agent`, for `createAgentUIStreamResponse` / `useChat` and any
   * code that takes one. The caller owns the transcript (it sends the messages, as `useChat`
   * does); the session keeps the disclosure state and the workspace. Each call names its session in
   * `options`: see docs/ai-sdk.md.
   */
  asAiSdkAgent(): Agent<SkillAgentCallOptions, Record<string, Tool>>;
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

function positiveInteger(value: unknown, _field: string, fallback: number): number {
  // Checked by skillAgentOptionsSchema when the agent is created.
  return value === undefined ? fallback : (value as number);
}

function requireId(value: unknown, argument: string, component = 'SkillAgent.run'): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new SkillAgentConfigError(component, [
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

/** Creates the session unless another writer did first; a turn creates it only when it has something to store. */
async function ensureSession(store: SessionStore, key: SessionKey): Promise<void> {
  try {
    await store.createSession(key);
  } catch (error) {
    if (!(error instanceof SessionExistsError)) throw error;
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A skills agent over the AI SDK (`streamText`): progressive disclosure, dynamic tools and
 * sessions. Each `run` reads the session, streams events as the model works, and appends the turn
 * (the user message, the response messages with tool calls and results, and one state event with
 * the turn's net state change) in one atomic append. When another writer appended meanwhile, the
 * append is retried on top of their events, so neither loses anything; the turn's state writes win
 * for the keys it changed.
 */
export function createSkillAgent(options: SkillAgentOptions): SkillAgent {
  validateOptions('createSkillAgent', skillAgentOptionsSchema, options, SkillAgentConfigError);
  const skills = resolveRepositoryOption(options);
  const name = options.name === undefined ? defaultAgentName : requireId(options.name, 'name');
  const maxSteps = positiveInteger(options.maxSteps, 'maxSteps', 20);
  const maxAppendAttempts = positiveInteger(options.maxAppendAttempts, 'maxAppendAttempts', 5);
  const repository = options.filter ? new FilteredSkillRepository(skills, options.filter) : skills;
  const sessions = options.sessions ?? createMemorySessionStore();
  // The `skill` input of each run is an enum of the skills that run's context can see.
  const { skills: _deprecatedName, ...toolkitOptions } = options;
  const toolkits = buildVisibleSkillToolkits({ ...toolkitOptions, repository });
  const workspaces = toolkits.workspaces;
  // Only a manager the agent made is the agent's to close.
  const ownsWorkspaces = options.workspaces === undefined && workspaces !== undefined;
  let closing: Promise<void> | undefined;
  const customTools = validateCustomTools(options.tools, toolkits.toolNames);
  const customToolNames = Object.keys(customTools);
  const callSettings = validateCallSettings(options.callSettings);
  const maxHistoryMessages =
    options.maxHistoryMessages === undefined
      ? undefined
      : positiveInteger(options.maxHistoryMessages, 'maxHistoryMessages', 0);
  const appName = options.appName;

  async function replayedHistory(stored: ModelMessage[]): Promise<ModelMessage[]> {
    const windowed = maxHistoryMessages === undefined ? stored : windowHistory(stored, maxHistoryMessages);
    if (options.prepareHistory === undefined) return windowed;
    const prepared = await options.prepareHistory(windowed);
    if (!Array.isArray(prepared))
      throw new SkillAgentConfigError('SkillAgent.run', [
        { option: 'prepareHistory', problem: 'must return an array of ModelMessages' },
      ]);
    return prepared;
  }

  /** One turn inside its `invoke_agent` span, which parents the turn's tool spans. */
  async function* run(runOptions: SkillAgentRunOptions): AsyncGenerator<SkillAgentEvent> {
    const span = await startAgentSpan({
      agentName: name,
      conversationId: String(runOptions?.sessionId ?? ''),
      requestModel: typeof options.model === 'string' ? options.model : options.model.modelId,
    });
    try {
      yield* runTurn(runOptions, span.traceContext);
    } catch (error) {
      span.fail(error);
      throw error;
    } finally {
      span.end();
    }
  }

  async function* runTurn(runOptions: SkillAgentRunOptions, traceContext: unknown): AsyncGenerator<SkillAgentEvent> {
    if (closing !== undefined)
      throw new SkillAgentConfigError('SkillAgent.run', [
        { option: 'agent', problem: 'was closed (close() ended its workspaces); create a new agent' },
      ]);
    const key: SessionKey = {
      userId: requireId(runOptions?.userId, 'userId'),
      sessionId: requireId(runOptions.sessionId, 'sessionId'),
      ...(appName !== undefined ? { appName } : {}),
    };
    const userMessage: UserModelMessage =
      typeof runOptions.message === 'string' ? { role: 'user', content: runOptions.message } : runOptions.message;
    if (userMessage?.role !== 'user')
      throw new SkillAgentConfigError('SkillAgent.run', [
        { option: 'message', problem: 'must be a string or a user ModelMessage' },
      ]);

    const toolkit = await toolkits.forContext(runOptions.context);
    // A session is read, not created: a turn that stores nothing must not leave an empty session.
    const session = (await sessions.getSession(key)) ?? { version: 0, state: {}, events: [] };
    const history = await replayedHistory(
      session.events.filter((event) => event.type === 'message').map((event) => event.content as ModelMessage),
    );
    const state = createInMemoryStateView(session.state);
    const pending: SkillAgentEvent[] = [];
    // A tool may run (and change state) before the stream hands over its call: the SDK starts it as
    // soon as the call is parsed. Its state change waits for its tool-call event, so a client sees
    // call, change, result in that order whatever the scheduling.
    const announced = new Set<string>();
    const ready = (): SkillAgentEvent[] => {
      const now: SkillAgentEvent[] = [];
      const later: SkillAgentEvent[] = [];
      for (const event of pending.splice(0)) {
        const waits =
          event.type === 'state-change' && event.toolCallId !== undefined && !announced.has(event.toolCallId);
        (waits ? later : now).push(event);
      }
      pending.push(...later);
      return now;
    };
    const compaction =
      options.compaction === undefined
        ? undefined
        : planCompaction(
            history,
            options.compaction,
            loadedSkillNames(state, name),
            (runOptions.skillLoads ?? []).map((load) => load.name),
          );
    let stepNumber = 0;
    let activeTools: string[] = [];
    // The response messages of every finished step (the SDK's step results are cumulative).
    let completedMessages: ModelMessage[] = [];
    let usage = emptyUsage;
    const approvalEvents: NewSessionEvent[] = [];
    const context = createSkillCallContext({
      sessionId: key.sessionId,
      userId: key.userId,
      ...(appName !== undefined ? { appName } : {}),
      agentName: name,
      state,
      ...(runOptions.context !== undefined ? { skillContext: runOptions.context } : {}),
      ...(runOptions.skillLoads !== undefined ? { skillLoads: runOptions.skillLoads } : {}),
      onStateChange: (change) => pending.push({ type: 'state-change', stepNumber, ...change }),
      onStepPrepared: (prepared: PreparedStep) => {
        activeTools = prepared.activeTools;
      },
      onApprovalEvent: (event) => approvalEvents.push(approvalSessionEvent(event)),
      ...(options.approval !== undefined ? { decideApproval: options.approval.decide ?? refuseWithoutDecide } : {}),
      ...(traceContext !== undefined ? { traceContext } : {}),
    });

    if (compaction !== undefined && compaction.unload.length > 0) {
      // Compacted content must not come back by materialisation: the skill is unloaded with it.
      const unloaded = new PendingStateWrites(
        state,
        Object.assign({}, ...compaction.unload.map((skill) => unloadSkillDelta(name, skill))),
      ).commit();
      if (Object.keys(unloaded).length > 0)
        pending.push({ type: 'state-change', stepNumber, source: 'turn', delta: unloaded });
    }

    /** The turn's events: the user message, the messages of `messages`, the net state change, and `extra`. */
    const turnEvents = (messages: readonly ModelMessage[], extra: NewSessionEvent[]): NewSessionEvent[] => {
      const events: NewSessionEvent[] = [
        { author: 'user', type: 'message', content: userMessage },
        ...messages.map((message): NewSessionEvent => ({ author: name, type: 'message', content: message })),
      ];
      const last = events[events.length - 1]!;
      last.usage = { ...usage };
      const delta = stateDifference(session.state, state.snapshot());
      if (Object.keys(delta).length > 0) events.push({ author: name, type: 'state', stateDelta: delta });
      return [...events, ...approvalEvents, ...extra];
    };

    // Custom tools join every step's active tools, after the skill and pool tools.
    const prepareStep: PrepareStepFunction<Record<string, Tool>> =
      customToolNames.length === 0
        ? toolkit.prepareStep
        : async (step) => {
            const prepared = await toolkit.prepareStep(step);
            activeTools = [...activeTools, ...customToolNames];
            return prepared?.activeTools === undefined
              ? prepared
              : { ...prepared, activeTools: [...prepared.activeTools, ...customToolNames] };
          };

    const result = streamText({
      ...callSettings,
      model: options.model,
      tools: { ...toolkit.tools, ...customTools },
      prepareStep,
      messages: [...(compaction?.messages ?? history), userMessage],
      stopWhen: stepCountIs(maxSteps),
      ...toolkit.contextOptions(context),
      onStepFinish: (step) => {
        completedMessages = responseMessagesAfterStep(completedMessages, step);
      },
      // Errors are rethrown from the event stream; the SDK's default would also print them.
      onError: () => {},
      ...(runOptions.abortSignal !== undefined ? { abortSignal: runOptions.abortSignal } : {}),
    });

    try {
      for await (const part of result.fullStream) {
        yield* ready();
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
            announced.add(part.toolCallId);
            yield* ready();
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
            const error =
              isUnavailableToolError(part.error) && toolkits.poolToolNames.includes(part.toolName)
                ? await describeUnavailableTool(repository, runOptions.context, part.toolName, {
                    includeNonModelInvocable: includesNonModelInvocable(options),
                  })
                : errorMessage(part.error);
            yield { type: 'tool-result', stepNumber, toolCallId: part.toolCallId, toolName: part.toolName, error };
            break;
          }
          case 'finish-step': {
            const stepUsage = usageOf(part.usage);
            usage = addUsage(usage, stepUsage);
            yield { type: 'step-finish', stepNumber, finishReason: part.finishReason, usage: stepUsage, activeTools };
            stepNumber += 1;
            break;
          }
          case 'abort':
            throw new TurnAbortedError(runOptions.abortSignal?.reason);
          case 'error':
            throw part.error;
          default:
            break;
        }
      }
    } catch (error) {
      yield* pending.splice(0);
      // The finished steps' side effects (files a script wrote, loaded skills) stay, so their
      // messages and state are stored with an error event: a retry sees a coherent history.
      // A turn that finished no step and changed no state stores nothing.
      const partial = turnEvents(completedMessages, [
        {
          author: name,
          type: 'error',
          content: {
            message: errorMessage(error),
            ...(error instanceof Error && 'code' in error ? { code: String(error.code) } : {}),
            steps: stepNumber,
          },
        },
      ]);
      if (completedMessages.length > 0 || partial.some((event) => event.type === 'state')) {
        await appendTurn(sessions, key, partial, session.version, maxAppendAttempts);
      }
      throw error;
    }
    yield* pending.splice(0);

    // Every step's response messages (the final response alone holds only the last step's on ai 7).
    const responseMessages = (await result.steps).reduce<ModelMessage[]>(
      (messages, step) => responseMessagesAfterStep(messages, step),
      [],
    );
    const version = await appendTurn(
      sessions,
      key,
      turnEvents(responseMessages, []),
      session.version,
      maxAppendAttempts,
    );
    yield { type: 'done', text: await result.text, steps: stepNumber, usage, sessionVersion: version };
  }

  /** The toolkit, the context and the step preparation of one AI SDK `Agent` call; `persist` stores the call's state change. */
  async function prepareAgentCall(callOptions: SkillAgentCallOptions | undefined) {
    if (typeof callOptions !== 'object' || callOptions === null)
      throw new SkillAgentConfigError('SkillAgent.asAiSdkAgent', [
        { option: 'options', problem: 'must be given to an AI SDK call of a skill agent: { userId, sessionId }' },
      ]);
    const key: SessionKey = {
      userId: requireId(callOptions.userId, 'options.userId', 'SkillAgent.asAiSdkAgent'),
      sessionId: requireId(callOptions.sessionId, 'options.sessionId', 'SkillAgent.asAiSdkAgent'),
      ...(appName !== undefined ? { appName } : {}),
    };
    const toolkit = await toolkits.forContext(callOptions.context);
    const session = (await sessions.getSession(key, { limit: 0 })) ?? { version: 0, state: {}, events: [] };
    const state = createInMemoryStateView(session.state);
    const approvalEvents: NewSessionEvent[] = [];
    // The workspace follows app, user and session, as for `run`: users may send the same session id.
    const context: SkillCallContext = createSkillCallContext({
      sessionId: key.sessionId,
      userId: key.userId,
      ...(appName !== undefined ? { appName } : {}),
      agentName: name,
      state,
      ...(callOptions.context !== undefined ? { skillContext: callOptions.context } : {}),
      ...(callOptions.skillLoads !== undefined ? { skillLoads: callOptions.skillLoads } : {}),
      onApprovalEvent: (event) => approvalEvents.push(approvalSessionEvent(event)),
    });
    const prepareStep: PrepareStepFunction<Record<string, Tool>> =
      customToolNames.length === 0
        ? toolkit.prepareStep
        : async (step) => {
            const prepared = await toolkit.prepareStep(step);
            return prepared?.activeTools === undefined
              ? prepared
              : { ...prepared, activeTools: [...prepared.activeTools, ...customToolNames] };
          };
    const persist = async () => {
      const delta = stateDifference(session.state, state.snapshot());
      const events: NewSessionEvent[] =
        Object.keys(delta).length > 0 ? [{ author: name, type: 'state', stateDelta: delta }] : [];
      events.push(...approvalEvents);
      if (events.length > 0) await appendTurn(sessions, key, events, session.version, maxAppendAttempts);
    };
    return { toolkit, context, prepareStep, persist };
  }

  /**
   * The settings of one AI SDK `Agent` call: the caller's (prompt or messages, abortSignal,
   * callbacks) over the agent's. The call's state is stored before the caller's finish callback
   * runs, so its next call sees it: ai 7 calls `onEnd` (`onFinish` is its old name), ai 6 `onFinish`.
   */
  async function agentCallSettings(parameters: object) {
    const {
      options: callOptions,
      onFinish,
      onEnd,
      ...rest
    } = parameters as {
      options?: SkillAgentCallOptions;
      onFinish?: (event: unknown) => unknown;
      onEnd?: (event: unknown) => unknown;
    };
    const call = await prepareAgentCall(callOptions);
    const callerFinish = onEnd ?? onFinish;
    const finish = async (event: unknown) => {
      await call.persist();
      if (callerFinish !== undefined) await callerFinish(event);
    };
    return {
      ...callSettings,
      ...rest,
      model: options.model,
      tools: { ...call.toolkit.tools, ...customTools },
      prepareStep: call.prepareStep,
      stopWhen: stepCountIs(maxSteps),
      ...call.toolkit.contextOptions(call.context),
      onFinish: finish,
      onEnd: finish,
    };
  }

  const aiSdkAgent: Agent<SkillAgentCallOptions, Record<string, Tool>> = {
    version: 'agent-v1',
    id: name,
    tools: { ...toolkits.tools, ...customTools },
    generate: async (parameters) =>
      generateText((await agentCallSettings(parameters)) as unknown as Parameters<typeof generateText>[0]) as never,
    stream: async (parameters) =>
      streamText((await agentCallSettings(parameters)) as unknown as Parameters<typeof streamText>[0]) as never,
  };

  return {
    name,
    sessions,
    workspaces,
    toolNames: [...toolkits.toolNames, ...customToolNames],
    run: (runOptions) => run(runOptions),
    asAiSdkAgent: () => aiSdkAgent,
    close: (closeOptions) => {
      closing ??= ownsWorkspaces && workspaces !== undefined ? workspaces.close(closeOptions) : Promise.resolve();
      return closing;
    },
  };
}

/** An approval request or decision as the session event it is stored as. */
function approvalSessionEvent(event: ApprovalEvent): NewSessionEvent {
  return { author: event.author, type: event.type, content: event.content };
}

/**
 * `run` streams a turn to its end and cannot pause for the AI SDK's approval response, so without
 * a `decide` to ask, a call needing approval is denied, never run.
 */
const refuseWithoutDecide: NonNullable<ApprovalOptions['decide']> = () => {
  throw new Error(
    'SkillAgent.run has no approval.decide to ask a person; give createSkillAgent approval.decide, or use asAiSdkAgent() and answer the AI SDK tool-approval requests',
  );
};

function validateCustomTools(tools: SkillAgentOptions['tools'], taken: readonly string[]): Record<string, Tool> {
  if (tools === undefined) return {};
  const clashes = Object.keys(tools).filter((name) => taken.includes(name));
  if (clashes.length > 0)
    throw new SkillAgentConfigError(
      'createSkillAgent',
      clashes.map((name) => ({ option: `tools.${name}`, problem: 'has the name of a skill tool or a pool tool' })),
    );
  return { ...tools };
}

function validateCallSettings(settings: SkillAgentOptions['callSettings']): SkillAgentCallSettings {
  // Checked by skillAgentOptionsSchema when the agent is created.
  return settings ?? {};
}

async function appendTurn(
  store: SessionStore,
  key: SessionKey,
  events: NewSessionEvent[],
  readVersion: number,
  maxAttempts: number,
): Promise<number> {
  let expectedVersion = readVersion;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return (await store.appendEvents(key, events, { expectedVersion })).version;
    } catch (error) {
      if (error instanceof SessionNotFoundError && expectedVersion === 0 && attempt < maxAttempts) {
        await ensureSession(store, key);
        continue;
      }
      if (!(error instanceof SessionConflictError) || attempt >= maxAttempts) throw error;
      // Re-read only the version: the turn's events go after whatever the other writer appended.
      const current = await store.getSession(key, { limit: 0 });
      if (!current) throw error;
      expectedVersion = current.version;
    }
  }
}
