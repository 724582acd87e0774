import { randomUUID } from 'node:crypto';
import { ToolMessage } from '@langchain/core/messages';
import { createMiddleware } from 'langchain';
import { validateOptions } from '../../config/validate-options.js';
import { cachedCatalogOfOption } from '../../disclosure/cached-catalog.js';
import { selectActiveTools } from '../../disclosure/dynamic-tool-selection.js';
import { defaultLoadMode } from '../../disclosure/load-mode.js';
import { materializeRequest } from '../../disclosure/materialize-request.js';
import { includesNonModelInvocable } from '../../disclosure/model-invocable-skills.js';
import { resolveLoadedSkills } from '../../disclosure/resolve-loaded-skills.js';
import { evictLeastRecentlyTouched } from '../../disclosure/skill-transitions.js';
import { afterModelRequest, beginTurn } from '../../disclosure/turn-lifecycle.js';
import { describeUnavailableTool } from '../../disclosure/unavailable-tool-message.js';
import type { StateDelta } from '../../state/state-delta.js';
import { createCheckedSkillTools, integrationSkillToolProfile } from '../../tools/create-skill-tools.js';
import { executionSetup } from '../../workspace/tools/execution-setup.js';
import {
  createSkillboxStateSchema,
  readerOf,
  type SkillboxGraphState,
  skillboxStateField,
  skillboxStateOf,
  withDelta,
} from './graph-state.js';
import { appendToSystemMessage, fromNeutralMessages, toNeutralMessages } from './langchain-messages.js';
import { type LangChainToolRuntime, type ToolContextOf, toLangChainTool } from './langchain-tool.js';
import {
  type SkillCallRuntime,
  type SkillMiddlewareOptions,
  type SkillSessionOfCall,
  skillMiddlewareOptionsSchema,
} from './skill-middleware-options.js';
import { StepStateWrites } from './step-state-writes.js';

const defaultAgentName = 'assistant';

/** The execution tools the options ask for, made here from a runtime or a workspace manager. */
function nameOf(tool: unknown): string {
  return (tool as { name?: unknown }).name as string;
}

/** The run's `configurable` and `context`, from a hook's runtime or a tool's. */
function callRuntimeOf(runtime: LangChainToolRuntime | SkillCallRuntime): SkillCallRuntime {
  const fromTool = runtime as LangChainToolRuntime;
  const configurable = fromTool.config?.configurable ?? runtime.configurable;
  return { ...(configurable !== undefined ? { configurable } : {}), context: runtime.context };
}

/**
 * A LangChain v1 `createAgent` middleware that gives the agent skillbox's progressive disclosure:
 * - the catalog of skills after the agent's system prompt (byte-stable between requests);
 * - the skill tools (`skill_load`, `skill_select_docs`, ..., `skill_run` with a runtime) as
 *   LangChain tools with zod schemas, registered by the middleware;
 * - loaded skills materialised into each model request, in their `skill_load` result or the system message;
 * - per step, the request's tools narrowed to what the loaded skills select from `toolPool`, and
 *   a call to a tool that is not offered now answered with what to load instead;
 * - the disclosure state in the graph state (`skillbox`), so a checkpointer persists it with the
 *   thread, and the load mode's turn reset when an invocation starts.
 * The graph's messages are never changed: only the request the model receives is.
 */
export function createSkillMiddleware(options: SkillMiddlewareOptions) {
  validateOptions('createSkillMiddleware', skillMiddlewareOptionsSchema, options);
  const agentName = options.agentName ?? defaultAgentName;
  const loadMode = options.loadMode ?? defaultLoadMode;
  const maxLoadedSkills = options.maxLoadedSkills || undefined;
  const { executionTools } = executionSetup(options, options.repository);
  const pool = options.toolPool ?? [];
  const poolToolNames = pool.map(nameOf);
  const definitions = createCheckedSkillTools({
    repository: options.repository,
    profile: integrationSkillToolProfile(undefined, executionTools !== undefined, poolToolNames.length > 0),
    ...(executionTools !== undefined ? { executionTools } : {}),
    ...(poolToolNames.length > 0 ? { toolPool: poolToolNames } : {}),
    ...(maxLoadedSkills !== undefined ? { maxLoadedSkills } : {}),
    ...(includesNonModelInvocable(options) ? { includeNonModelInvocable: true } : {}),
  });
  const skillToolNames = definitions.map((definition) => definition.name);
  const clash = poolToolNames.find((name) => skillToolNames.includes(name));
  if (clash !== undefined)
    validateOptions(
      'createSkillMiddleware',
      skillMiddlewareOptionsSchema.refine(() => false, {
        path: ['toolPool'],
        message: `holds a tool named "${clash}", the name of a skill tool`,
      }),
      options,
    );
  const managed = new Set([...skillToolNames, ...poolToolNames]);
  const catalog = cachedCatalogOfOption(options.repository, options.catalog, {
    tools: skillToolNames,
    ...(includesNonModelInvocable(options) ? { includeNonModelInvocable: true } : {}),
  });
  const writes = new StepStateWrites();

  const sessionOf = (runtime: SkillCallRuntime, invocation: string): SkillSessionOfCall => {
    if (options.session !== undefined) return options.session(runtime);
    const thread = runtime.configurable?.thread_id;
    return { sessionId: typeof thread === 'string' && thread !== '' ? thread : `run-${invocation}` };
  };
  const contextOf: ToolContextOf = (runtime) => {
    const invocation = skillboxStateOf((runtime.state ?? {}) as Record<string, unknown>).invocation;
    const session = sessionOf(callRuntimeOf(runtime), invocation);
    return {
      sessionId: session.sessionId,
      ...(session.userId !== undefined ? { userId: session.userId } : {}),
      ...(session.appName !== undefined ? { appName: session.appName } : {}),
      ...(session.skillContext !== undefined ? { skillContext: session.skillContext } : {}),
      agentName,
    };
  };
  const tools = [...definitions.map((definition) => toLangChainTool(definition, { contextOf, writes })), ...pool];

  /** The state update for `delta`, or nothing when it changes nothing. */
  const update = (state: SkillboxGraphState, delta: StateDelta, invocation = state.invocation) => {
    const next = withDelta(state, delta, invocation);
    return next === state ? undefined : { [skillboxStateField]: next };
  };
  /** The caller's visibility context, the loaded skills and the tools they select, as the step starts. */
  const stepSelection = async (request: { state: Record<string, unknown>; runtime: unknown }) => {
    const state = skillboxStateOf(request.state);
    const { skillContext } = sessionOf(callRuntimeOf(request.runtime as SkillCallRuntime), state.invocation);
    const reader = readerOf(state);
    const loadedSkills = await resolveLoadedSkills(reader, agentName, options.repository, skillContext);
    const selection = await selectActiveTools({
      repository: options.repository,
      state: reader,
      agentName,
      loadedSkills,
      skillToolNames,
      poolToolNames,
      ...(skillContext !== undefined ? { skillContext } : {}),
      ...(options.enforceAllowedTools ? { enforceAllowedTools: true } : {}),
      ...(options.allowedToolAliases ? { allowedToolAliases: options.allowedToolAliases } : {}),
    });
    return { skillContext, reader, loadedSkills, selection };
  };

  return createMiddleware({
    name: 'SkillboxMiddleware',
    stateSchema: createSkillboxStateSchema(),
    tools,
    beforeAgent: (state) => {
      const current = skillboxStateOf(state);
      // A fresh invocation id: the calls of its steps share it, and no other run's calls see them.
      const delta = beginTurn(readerOf(current), { agentName, mode: loadMode });
      return update(current, delta, randomUUID());
    },
    beforeModel: (state) => {
      const current = skillboxStateOf(state);
      return update(current, evictLeastRecentlyTouched(readerOf(current), { agentName, maxLoadedSkills }));
    },
    wrapModelCall: async (request, handler) => {
      const { skillContext, reader, loadedSkills, selection } = await stepSelection(request);
      const active = new Set(selection.activeTools);
      const catalogText = (await catalog?.renderWithOutcome(skillContext))?.text ?? '';
      const materialized = await materializeRequest({
        messages: toNeutralMessages(request.messages, options.instructions ?? ''),
        state: reader,
        agentName,
        repository: options.repository,
        mode: options.materialize ?? 'tool-result',
        loadedSkills,
        catalog: catalogText,
        ...(skillContext !== undefined ? { skillContext } : {}),
      });
      const { systemText, messages } = fromNeutralMessages(request.messages, materialized);
      const systemMessage = appendToSystemMessage(request.systemMessage, systemText);
      return handler({
        ...request,
        messages,
        ...(systemMessage !== undefined ? { systemMessage } : {}),
        // The caller's own tools stay; skill tools and pool tools only as the loaded skills select them.
        tools: request.tools.filter((tool) => !managed.has(nameOf(tool)) || active.has(nameOf(tool))),
      });
    },
    afterModel: (state) => {
      if (loadMode !== 'once') return undefined;
      const current = skillboxStateOf(state);
      return update(current, afterModelRequest(readerOf(current), { agentName, mode: 'once' }));
    },
    wrapToolCall: async (request, handler) => {
      const toolName = request.toolCall.name;
      // The caller's own tools are not skillbox's to refuse; every skill and pool tool is, allowed-tools included.
      if (!managed.has(toolName)) return handler(request);
      const { skillContext, loadedSkills, selection } = await stepSelection(request);
      if (selection.activeTools.includes(toolName)) return handler(request);
      // The model was not offered this tool in this step: it learns what to load instead.
      const withheldBy = selection.withheld.includes(toolName)
        ? loadedSkills.flatMap((entry) =>
            entry.skill !== undefined && entry.skill.allowedTools.length > 0 ? [entry.skill.name] : [],
          )
        : [];
      const text = await describeUnavailableTool(
        options.repository,
        skillContext,
        toolName,
        { includeNonModelInvocable: includesNonModelInvocable(options) },
        withheldBy,
      );
      return new ToolMessage({ content: text, tool_call_id: request.toolCall.id ?? '', status: 'error' });
    },
    afterAgent: (state) => {
      writes.forget(skillboxStateOf(state).invocation);
      return undefined;
    },
  });
}
