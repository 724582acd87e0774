import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Agent, CallModelInputFilter, RunContext, ToolErrorFormatter } from '@openai/agents';
import type { ApprovalOptions } from '../../approvals/approval-types.js';
import { SkillboxConfigError } from '../../config/config-error.js';
import { validateOptions } from '../../config/validate-options.js';
import { cachedCatalogOfOption } from '../../disclosure/cached-catalog.js';
import type { CatalogBudget, CatalogFormat } from '../../disclosure/catalog.js';
import type { DeclaredSkillLoad } from '../../disclosure/declared-loads.js';
import { defaultLoadMode, type LoadMode } from '../../disclosure/load-mode.js';
import type { MaterializationMode } from '../../disclosure/materialize-request.js';
import { afterModelRequest } from '../../disclosure/turn-lifecycle.js';
import { describeUnavailableTool } from '../../disclosure/unavailable-tool-message.js';
import type { SkillContext, SkillRepository } from '../../repository/types.js';
import { gateRepository, type UnmetRequirementsMode } from '../../requirements/gated-repository.js';
import type { SessionStore } from '../../sessions/session-store.js';
import {
  createCheckedSkillTools,
  integrationSkillToolProfile,
  type SkillToolProfile,
} from '../../tools/create-skill-tools.js';
import type { ToolDefinition } from '../../tools/types.js';
import { type ExecutionSetupOptions, executionSetup } from '../../workspace/tools/execution-setup.js';
import { requirementCheckerFor } from '../../workspace/tools/requirement-gate.js';
import type { WorkspaceManager } from '../../workspace/workspace-manager.js';
import { agentSkillsOptionsSchema } from './agent-skills-options-schema.js';
import { type AgentStepSettings, commitToSession, prepareAgentStep } from './agent-step.js';
import { AgentsSkillSession } from './agents-skill-session.js';
import { type AnyFunctionTool, toAgentsFunctionTool } from './function-tool-adapter.js';
import { materializeAgentsInput } from './request-materialization.js';
import { bindingOfRunContext, bindRunContext, type SkillRunBinding } from './skill-run-binding.js';

/** Options of `createAgentSkills`: where skills come from, how they run, how they are disclosed, where sessions live. */
export interface AgentSkillsOptions extends ExecutionSetupOptions {
  /** Where skills come from. */
  repository: SkillRepository;
  /**
   * `knowledge` (default without a runtime), `full` (default with one) or exact tool names. With a
   * tool pool, `knowledge` also registers skill_list_tools and skill_select_tools.
   */
  profile?: SkillToolProfile | readonly string[];
  /**
   * The SDK's function tools that become enabled only while a loaded skill's `Tools:` section names
   * them (their own `isEnabled` still applies).
   */
  toolPool?: readonly AnyFunctionTool[];
  /** Where loaded skills go: `tool-result` (default, keeps the cached prefix) or `system`. */
  materialize?: MaterializationMode;
  /** `turn` (default), `once` or `session`; a turn is one `run()`. */
  loadMode?: LoadMode;
  /** Keep at most this many loaded skills per agent, evicting the least recently touched. */
  maxLoadedSkills?: number;
  /** Catalog rendering; `false` leaves it out of the instructions. */
  catalog?: false | { format?: CatalogFormat; budget?: CatalogBudget; guidance?: string | false };
  /** Narrow the enabled tools to the loaded skills' `allowed-tools`. */
  enforceAllowedTools?: boolean;
  allowedToolAliases?: Readonly<Record<string, readonly string[]>>;
  /** With a runtime: what the model is shown of a skill whose requirements are not met there (`mark` or `hide`). */
  unmetRequirements?: UnmetRequirementsMode;
  /**
   * Calls that need a person's approval (docs/approvals.md): asked in-process with `decide`, else
   * through the SDK's own interruptions (`result.interruptions`, `result.state.approve(item)`).
   */
  approval?: ApprovalOptions;
  /** The session store; default the SQLite file `~/.skillbox/sessions.db` (the CLI's). */
  sessions?: SessionStore;
}

/** What one agent spreads into `new Agent({...})`: its name, its instructions function, its tools. */
export interface SkillAgentParts {
  name: string;
  /** Your instructions, then the catalog; the SDK calls it before every model call. */
  instructions: (runContext: RunContext<unknown>, agent: Agent<unknown, 'text'>) => Promise<string>;
  /** The skill tools and the pool, each enabled per model call by what this agent has loaded. */
  tools: AnyFunctionTool[];
}

/** The settings one `run()` needs: spread into its options. */
export interface SkillRunOptions<TContext extends object> {
  session: AgentsSkillSession;
  context: TContext;
  callModelInputFilter: CallModelInputFilter;
  /** A call of a tool the step did not enable is answered to the model (not raised), with what to load instead. */
  toolNotFoundBehavior: 'return_error_to_model';
  toolErrorFormatter: ToolErrorFormatter;
}

/** Skills for OpenAI Agents SDK agents: per-agent tools and instructions, sessions, and per-run options. */
export interface AgentSkills {
  /** Tools and instructions for the agent called `name` (its disclosure state is its own). */
  forAgent(name: string, options?: { instructions?: string }): SkillAgentParts;
  /** Opens (or creates) the session of a user's conversation in the session store. */
  openSession(key: { userId: string; sessionId: string; appName?: string }): Promise<AgentsSkillSession>;
  /**
   * The options one run needs: the session, the run's context (yours, or a new object) tied to it,
   * and the input filter that puts loaded skills into the request.
   */
  runOptions<TContext extends object = Record<string, never>>(
    session: AgentsSkillSession,
    options?: {
      context?: TContext;
      skillContext?: SkillContext;
      /** Skills loaded before the first model call, by agent name (validated as one batch). */
      skillLoads?: Readonly<Record<string, readonly DeclaredSkillLoad[]>>;
    },
  ): SkillRunOptions<TContext>;
  /** The skill tools' names (always enabled, unless allowed-tools narrows them), in registration order. */
  skillToolNames: readonly string[];
  /** The workspace manager when a runtime or workspaces were given. */
  workspaces: WorkspaceManager | undefined;
  /** Closes the session store this created (the default SQLite file); a store you gave stays open. */
  close(): Promise<void>;
}

/**
 * skillbox for the OpenAI Agents SDK. `forAgent(name)` gives an agent the skill tools as function
 * tools, the tool pool enabled per model call (`isEnabled`) and instructions with the catalog;
 * `openSession` gives the SDK a `Session` whose items and disclosure state live in a skillbox
 * session store; `runOptions(session)` ties a run to that session and materialises loaded skills
 * into each request (`callModelInputFilter`). Agents handing off to each other keep separate state.
 */
export function createAgentSkills(options: AgentSkillsOptions): AgentSkills {
  validateOptions('createAgentSkills', agentSkillsOptionsSchema, options);
  const listedRepository = options.repository;
  const pool = options.toolPool ?? [];
  const { workspaces, executionTools, execution } = executionSetup(options, listedRepository);
  // What the model sees is gated by where commands run; skill_run keeps the ungated repository.
  const repository =
    execution === undefined
      ? listedRepository
      : gateRepository(listedRepository, requirementCheckerFor(execution), options.unmetRequirements ?? 'mark');
  const definitions: ToolDefinition[] = createCheckedSkillTools({
    repository,
    profile: integrationSkillToolProfile(options.profile, (executionTools?.length ?? 0) > 0, pool.length > 0),
    ...(executionTools !== undefined ? { executionTools } : {}),
    ...(pool.length > 0 ? { toolPool: pool.map((entry) => entry.name) } : {}),
    ...(options.maxLoadedSkills !== undefined ? { maxLoadedSkills: options.maxLoadedSkills } : {}),
  });
  const skillToolNames = definitions.map((definition) => definition.name);
  // A pool tool named like a skill tool would shadow it for the model and for the SDK's dispatch.
  const clashes = pool.flatMap((entry, index) =>
    skillToolNames.includes(entry.name)
      ? [{ option: `toolPool.${index}`, problem: `has the name of the skill tool "${entry.name}"` }]
      : [],
  );
  if (clashes.length > 0) throw new SkillboxConfigError('createAgentSkills', clashes);
  const settings: AgentStepSettings = {
    repository,
    skillToolNames,
    poolToolNames: pool.map((entry) => entry.name),
    loadMode: options.loadMode ?? defaultLoadMode,
    maxLoadedSkills: options.maxLoadedSkills || undefined,
    enforceAllowedTools: options.enforceAllowedTools === true,
    ...(options.allowedToolAliases !== undefined ? { allowedToolAliases: options.allowedToolAliases } : {}),
  };
  const catalog = cachedCatalogOfOption(repository, options.catalog, { tools: skillToolNames });
  const materialize = options.materialize ?? 'tool-result';
  const loadMode = settings.loadMode;
  let ownStore: Promise<SessionStore> | undefined;
  const sessionStore = (): Promise<SessionStore> => {
    if (options.sessions !== undefined) return Promise.resolve(options.sessions);
    ownStore ??= import('../../sessions/sqlite/sqlite-session-store.js').then(async ({ openSqliteSessionStore }) => {
      const { mkdir } = await import('node:fs/promises');
      const folder = join(homedir(), '.skillbox');
      await mkdir(folder, { recursive: true });
      return openSqliteSessionStore({ path: join(folder, 'sessions.db') });
    });
    return ownStore;
  };

  const isActive = async (binding: SkillRunBinding, agentName: string, toolName: string) =>
    (await prepareAgentStep(settings, binding, agentName)).selection.activeTools.includes(toolName);

  const callModelInputFilter: CallModelInputFilter = async ({ modelData, agent, context }) => {
    const binding = bindingOfRunContext(context, 'callModelInputFilter');
    const agentName = agent.name;
    const step = await prepareAgentStep(settings, binding, agentName);
    binding.session.currentAgent = agentName;
    binding.modelCalls += 1;
    const materialized = await materializeAgentsInput({
      modelInput: modelData,
      binding,
      agentName,
      repository,
      mode: materialize,
      loadedSkills: step.loadedSkills,
    });
    // `once`: what this request showed is unloaded after it.
    if (loadMode === 'once')
      commitToSession(binding.session, afterModelRequest(binding.session.state, { agentName, mode: 'once' }));
    return materialized;
  };

  // The model called a pool tool its step did not enable: it reads which skill provides it, as with the AI SDK.
  const toolErrorFormatter: ToolErrorFormatter = async ({ kind, toolName, runContext }) => {
    if (kind !== 'tool_not_found') return undefined;
    const binding = bindingOfRunContext(runContext.context, 'toolErrorFormatter');
    const agentName = binding.session.currentAgent;
    const step = await prepareAgentStep(settings, binding, agentName);
    const withheld = step.selection.withheld.includes(toolName);
    if (!withheld && !settings.poolToolNames.includes(toolName)) return undefined;
    const restricting = withheld
      ? step.loadedSkills.flatMap((entry) =>
          entry.skill !== undefined && entry.skill.allowedTools.length > 0 ? [entry.skill.name] : [],
        )
      : [];
    return describeUnavailableTool(repository, binding.skillContext, toolName, {}, restricting);
  };

  return {
    forAgent(name, agentOptions = {}) {
      const tools = [
        ...definitions.map((definition) =>
          toAgentsFunctionTool(definition, {
            agentName: name,
            ...(options.approval !== undefined ? { approval: options.approval } : {}),
            isActive: (binding, toolName) => isActive(binding, name, toolName),
          }),
        ),
        ...pool.map(
          (entry): AnyFunctionTool => ({
            ...entry,
            isEnabled: async (runContext, agent) =>
              (await isActive(bindingOfRunContext(runContext.context, `tool "${entry.name}"`), name, entry.name)) &&
              (await entry.isEnabled(runContext, agent)),
          }),
        ),
      ] as AnyFunctionTool[];
      const base = agentOptions.instructions ?? '';
      return {
        name,
        tools,
        instructions: async (runContext) => {
          const binding = bindingOfRunContext(runContext.context, `the instructions of agent "${name}"`);
          const rendered = (await catalog?.renderWithOutcome(binding.skillContext))?.text ?? '';
          return [base, rendered].filter((part) => part !== '').join('\n\n');
        },
      };
    },
    async openSession(key) {
      return AgentsSkillSession.open(await sessionStore(), key, 'assistant');
    },
    runOptions(session, runOptions = {}) {
      const context = (runOptions.context ?? {}) as NonNullable<typeof runOptions.context>;
      bindRunContext(context, {
        session,
        modelCalls: 0,
        turnStarts: new Map(),
        steps: new Map(),
        ...(runOptions.skillContext !== undefined ? { skillContext: runOptions.skillContext } : {}),
        ...(runOptions.skillLoads !== undefined ? { skillLoads: runOptions.skillLoads } : {}),
      });
      return {
        session,
        context,
        callModelInputFilter,
        toolNotFoundBehavior: 'return_error_to_model',
        toolErrorFormatter,
      };
    },
    skillToolNames,
    workspaces,
    async close() {
      if (ownStore !== undefined) await (await ownStore).close();
    },
  };
}
