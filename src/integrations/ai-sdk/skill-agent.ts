import type { Agent, CallSettings, LanguageModel, ModelMessage, streamText, Tool, UserModelMessage } from 'ai';
import { SkillboxConfigError } from '../../config/config-error.js';
import { validateOptions } from '../../config/validate-options.js';
import type { DeclaredSkillLoad } from '../../disclosure/declared-loads.js';
import { FilteredSkillRepository, type SkillVisibility } from '../../repository/filter-skills.js';
import type { SkillContext, SkillRepository } from '../../repository/types.js';
import { createMemorySessionStore } from '../../sessions/memory-session-store.js';
import type { SessionStore } from '../../sessions/session-store.js';
import { startAgentSpan } from '../../telemetry/agent-span.js';
import type { WorkspaceManager } from '../../workspace/workspace-manager.js';
import type { AgentSetup } from './agent-call.js';
import type { SkillAgentEvent } from './agent-events.js';
import { runAgentTurn } from './agent-turn.js';
import { toAiSdkAgent } from './ai-sdk-agent-adapter.js';
import type { SkillCompactionPolicy } from './loaded-content-compaction.js';
import { skillAgentOptionsSchema } from './skill-agent-options-schema.js';
import { defaultAgentName } from './skill-call-context.js';
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

/**
 * A skills agent over the AI SDK (`streamText`): progressive disclosure, dynamic tools and
 * sessions. Each `run` reads the session, streams events as the model works, and appends the turn
 * (the user message, the response messages with tool calls and results, and one state event with
 * the turn's net state change) in one atomic append. When another writer appended meanwhile, the
 * append is retried on top of their events, so neither loses anything; the turn's state writes win
 * for the keys it changed.
 */
export function createSkillAgent(options: SkillAgentOptions): SkillAgent {
  const setup = buildAgentSetup('createSkillAgent', options);
  const { toolkits } = setup;
  const { workspaces } = toolkits;
  // Only a manager the agent made is the agent's to close.
  const ownsWorkspaces = options.workspaces === undefined && workspaces !== undefined;
  let closing: Promise<void> | undefined;

  /** One turn inside its `invoke_agent` span, which parents the turn's tool spans. */
  async function* run(runOptions: SkillAgentRunOptions): AsyncGenerator<SkillAgentEvent> {
    const span = await startAgentSpan({
      agentName: setup.name,
      conversationId: String(runOptions?.sessionId ?? ''),
      requestModel: typeof options.model === 'string' ? options.model : options.model.modelId,
    });
    try {
      if (closing !== undefined)
        throw new SkillboxConfigError('SkillAgent.run', [
          { option: 'agent', problem: 'was closed (close() ended its workspaces); create a new agent' },
        ]);
      yield* runAgentTurn(setup, runOptions, span.traceContext);
    } catch (error) {
      span.fail(error);
      throw error;
    } finally {
      span.end();
    }
  }

  const aiSdkAgent = toAiSdkAgent(setup);
  return {
    name: setup.name,
    sessions: setup.sessions,
    workspaces,
    toolNames: [...toolkits.toolNames, ...Object.keys(setup.customTools)],
    run: (runOptions) => run(runOptions),
    asAiSdkAgent: () => aiSdkAgent,
    close: (closeOptions) => {
      closing ??= ownsWorkspaces && workspaces !== undefined ? workspaces.close(closeOptions) : Promise.resolve();
      return closing;
    },
  };
}

/**
 * Checks an agent's options once and builds what every turn shares: the one set-up behind
 * `createSkillAgent` and the durable session object of skillbox/restate. `component` names the
 * factory in errors.
 */
export function buildAgentSetup(component: string, options: SkillAgentOptions): AgentSetup {
  // The one check of the options: the parts below are built from them unchecked.
  validateOptions(component, skillAgentOptionsSchema, options);
  // Required by the schema (toolkitRules in skill-agent-options-schema.ts).
  const skills = options.repository as SkillRepository;
  const repository = options.filter ? new FilteredSkillRepository(skills, options.filter) : skills;
  // The `skill` input of each run is an enum of the skills that run's context can see.
  const toolkits = buildVisibleSkillToolkits({ ...options, repository });
  return {
    options,
    name: options.name ?? defaultAgentName,
    appName: options.appName,
    model: options.model,
    sessions: options.sessions ?? createMemorySessionStore(),
    repository,
    toolkits,
    customTools: customToolsOf(options.tools, toolkits.toolNames, component),
    callSettings: options.callSettings ?? {},
    maxSteps: options.maxSteps ?? 20,
    maxAppendAttempts: options.maxAppendAttempts ?? 5,
  };
}

/** The caller's own tools; a name a skill tool or a pool tool already has is refused. */
function customToolsOf(
  tools: SkillAgentOptions['tools'],
  taken: readonly string[],
  component: string,
): Record<string, Tool> {
  if (tools === undefined) return {};
  // The names the toolkit registers are known only once it is built, after the schema ran.
  const clashes = Object.keys(tools).filter((name) => taken.includes(name));
  if (clashes.length > 0)
    throw new SkillboxConfigError(
      component,
      clashes.map((name) => ({ option: `tools.${name}`, problem: 'has the name of a skill tool or a pool tool' })),
    );
  return { ...tools };
}
