import { randomUUID } from 'node:crypto';
import type { ModelMessage, PrepareStepFunction, PrepareStepResult, SystemModelMessage, Tool } from 'ai';
import { SkillboxConfigError } from '../../config/config-error.js';
import { validateOptions } from '../../config/validate-options.js';
import { type CachedCatalog, cachedCatalogOfOption } from '../../disclosure/cached-catalog.js';
import type { CatalogBudget, CatalogFormat } from '../../disclosure/catalog.js';
import { applyDeclaredLoads } from '../../disclosure/declared-loads.js';
import { selectActiveTools } from '../../disclosure/dynamic-tool-selection.js';
import { defaultLoadMode, type LoadMode } from '../../disclosure/load-mode.js';
import { type MaterializationMode, materializeRequest } from '../../disclosure/materialize-request.js';
import { includesNonModelInvocable, type ModelInvocationOptions } from '../../disclosure/model-invocable-skills.js';
import type { ModelMessage as NeutralModelMessage } from '../../disclosure/model-messages.js';
import { resolveLoadedSkills } from '../../disclosure/resolve-loaded-skills.js';
import { evictLeastRecentlyTouched } from '../../disclosure/skill-transitions.js';
import { afterModelRequest, beginTurn } from '../../disclosure/turn-lifecycle.js';
import { describeUnavailableTool } from '../../disclosure/unavailable-tool-message.js';
import type { SkillRepository } from '../../repository/types.js';
import { createInMemoryStateView } from '../../state/in-memory-state-view.js';
import { PendingStateWrites } from '../../state/pending-state-writes.js';
import { mergeDeltas, overlayState, type StateDelta } from '../../state/state-delta.js';
import {
  callerInstructionsOfStep,
  contextOfStep,
  conversationOfStep,
  isInstructionsStep,
  skillContextCallOptions,
} from './ai-sdk-versions.js';
import { skillPrepareStepOptionsSchema } from './skill-agent-options-schema.js';
import {
  createSkillCallContext,
  isSkillCallContext,
  resolveSkillCallContext,
  type SkillCallContext,
} from './skill-call-context.js';
import { explainUnavailableToolCalls, findUnavailableToolCalls } from './unavailable-tool-calls.js';

/** Options of `createSkillPrepareStep`: the repository, the tool names and pool, materialisation, load mode and catalog. */
export interface SkillPrepareStepOptions extends ModelInvocationOptions {
  repository: SkillRepository;
  /** Names of the skill tools registered with the model (skill_load, ..., skill_run): always active. */
  skillToolNames: readonly string[];
  /** Tools that become active only when a loaded skill's `Tools:` section names them. */
  toolPool?: Readonly<Record<string, Tool>>;
  /** Where loaded skills go: `tool-result` (default, cache-friendly) or `system`. */
  materialize?: MaterializationMode;
  /** `turn` (default), `once` or `session`. */
  loadMode?: LoadMode;
  /** Keep at most this many loaded skills, evicting the least recently touched. */
  maxLoadedSkills?: number;
  /**
   * Your system prompt for the skills. Sent after the caller's own `system` / `instructions` (which
   * are kept, never replaced) and before the catalog: see docs/ai-sdk.md for what is sent.
   */
  instructions?: string;
  /** Catalog rendering; `false` leaves the catalog out (the model must know the skills some other way). */
  catalog?: false | { format?: CatalogFormat; budget?: CatalogBudget; guidance?: string | false };
  /** Narrow active tools to the loaded skills' `allowed-tools`. */
  enforceAllowedTools?: boolean;
  allowedToolAliases?: Readonly<Record<string, readonly string[]>>;
  /** Used when a call carries no context (ai 7 `toolsContext`, ai 6 `experimental_context`). */
  context?: SkillCallContext | (() => SkillCallContext);
  /**
   * When `skill_search` is registered: `over-budget` (default) keeps it active only in steps whose
   * catalog the budget shortened (the catalog then points to it), `always` keeps it active, `never`
   * (the toolkit then does not register it). See docs/skill-search.md.
   */
  skillSearch?: SkillSearchMode;
}

/** When the model is offered `skill_search`: see `SkillPrepareStepOptions.skillSearch`. */
export type SkillSearchMode = 'over-budget' | 'always' | 'never';

/** The AI SDK's and the disclosure layer's messages have the same shape; this is the one place that says so. */
function toNeutral(messages: readonly ModelMessage[]): NeutralModelMessage[] {
  return messages as unknown as NeutralModelMessage[];
}

function fromNeutral(messages: readonly NeutralModelMessage[]): ModelMessage[] {
  return messages as unknown as ModelMessage[];
}

/** A pool tool named like a skill tool would shadow it: refused once the skill tool names are known. */
function refusePoolToolsNamedLikeSkillTools(options: SkillPrepareStepOptions): void {
  const clashes = Object.keys(options.toolPool ?? {}).filter((name) => options.skillToolNames.includes(name));
  if (clashes.length > 0)
    throw new SkillboxConfigError(
      'createSkillPrepareStep',
      clashes.map((name) => ({ option: `toolPool.${name}`, problem: 'has the name of a skill tool' })),
    );
}

/** Writes a turn-level delta into the session state and tells the listener what it changed. */
function commitTurnDelta(context: SkillCallContext, delta: StateDelta): void {
  const changed = new PendingStateWrites(context.state, delta).commit();
  if (Object.keys(changed).length === 0) return;
  context.onStateChange?.({ source: 'turn', delta: changed });
}

/**
 * A `prepareStep` for `generateText` / `streamText` / `ToolLoopAgent` that does progressive
 * disclosure before every model call:
 * - on the first step of a call (one call = one turn) it applies the load mode's turn reset and the
 *   caller-declared loads atomically;
 * - it evicts beyond `maxLoadedSkills`;
 * - it adds the catalog to the system prompt and materialises loaded skills (into the system
 *   message, or into their `skill_load` / `skill_select_docs` results with the system fallback);
 * - it sets `activeTools`: the skill tools plus the pool tools the loaded skills select;
 * - it replaces the SDK's generic "unavailable tool" results with what to call instead;
 * - in `once` mode it unloads the skills the request just showed.
 * The caller's messages are never changed; only the request is.
 */
export function createSkillPrepareStep(options: SkillPrepareStepOptions): PrepareStepFunction<Record<string, Tool>> {
  validateOptions('createSkillPrepareStep', skillPrepareStepOptionsSchema, options);
  return buildSkillPrepareStep(options);
}

/** What every step of one prepare step reads: the options with their defaults, and the catalog. */
interface PrepareStepSettings {
  options: SkillPrepareStepOptions;
  loadMode: LoadMode;
  /** Undefined for no limit (0 means the same). */
  maxLoadedSkills: number | undefined;
  materialize: MaterializationMode;
  skillSearch: SkillSearchMode;
  poolToolNames: readonly string[];
  catalog: CachedCatalog | undefined;
}

/** `createSkillPrepareStep` for options a schema already checked (the toolkit's or the agent's). */
export function buildSkillPrepareStep(options: SkillPrepareStepOptions): PrepareStepFunction<Record<string, Tool>> {
  refusePoolToolsNamedLikeSkillTools(options);
  const skillSearch = options.skillSearch ?? 'over-budget';
  const settings: PrepareStepSettings = {
    options,
    loadMode: options.loadMode ?? defaultLoadMode,
    maxLoadedSkills: options.maxLoadedSkills || undefined,
    materialize: options.materialize ?? 'tool-result',
    skillSearch,
    poolToolNames: Object.keys(options.toolPool ?? {}),
    catalog: cachedCatalogOfOption(options.repository, options.catalog, {
      tools: options.skillToolNames,
      ...(includesNonModelInvocable(options) ? { includeNonModelInvocable: true } : {}),
      ...(skillSearch === 'always' ? { skillSearch: 'always' as const } : {}),
    }),
  };
  return ((step: { stepNumber: number; messages: ModelMessage[] }) =>
    prepareOneStep(settings, step)) as PrepareStepFunction<Record<string, Tool>>;
}

/** The context of a step: the call's, the options' fallback, or, for a call that brings none, a fresh one. */
function contextOfCall(
  settings: PrepareStepSettings,
  step: { stepNumber: number; messages: ModelMessage[] },
): { context: SkillCallContext; madeForCall: SkillCallContext | undefined } {
  const { options } = settings;
  const given = contextOfStep(step, options.skillToolNames);
  // A call that brings no context (an agent of the caller's own, behind createAgentUIStreamResponse)
  // is its own session: a fresh context made on its first step travels on to its later steps and
  // tools in the step result. Skills loaded in it last for the call.
  const madeForCall =
    step.stepNumber === 0 && options.context === undefined && !isSkillCallContext(given)
      ? createSkillCallContext({ sessionId: `call-${randomUUID()}`, state: createInMemoryStateView() })
      : undefined;
  return { context: madeForCall ?? resolveSkillCallContext(given, options.context, 'prepareStep'), madeForCall };
}

/** The first step of a call is a turn: the load mode's reset and the declared loads land together or not at all. */
async function startTurn(settings: PrepareStepSettings, context: SkillCallContext): Promise<void> {
  const { agentName, state, skillContext } = context;
  // A bad declaration throws before anything is written.
  const reset = beginTurn(state, { agentName, mode: settings.loadMode });
  const declared = await applyDeclaredLoads(overlayState(state, reset), {
    agentName,
    repository: settings.options.repository,
    loads: context.skillLoads ?? [],
    ...(skillContext !== undefined ? { skillContext } : {}),
    ...(settings.maxLoadedSkills !== undefined ? { maxLoadedSkills: settings.maxLoadedSkills } : {}),
  });
  commitTurnDelta(context, mergeDeltas(reset, declared));
}

async function prepareOneStep(
  settings: PrepareStepSettings,
  step: { stepNumber: number; messages: ModelMessage[] },
): Promise<PrepareStepResult<Record<string, Tool>>> {
  const { options, poolToolNames } = settings;
  const { stepNumber } = step;
  const messages = conversationOfStep(step);
  const { context, madeForCall } = contextOfCall(settings, step);
  const { agentName, state, skillContext } = context;

  if (stepNumber === 0) await startTurn(settings, context);
  commitTurnDelta(context, evictLeastRecentlyTouched(state, { agentName, maxLoadedSkills: settings.maxLoadedSkills }));

  // Resolved once for the step: tool selection and materialisation read the same skills.
  const loadedSkills = await resolveLoadedSkills(state, agentName, options.repository, skillContext);
  const selection = await selectActiveTools({
    repository: options.repository,
    state,
    agentName,
    loadedSkills,
    skillToolNames: options.skillToolNames,
    poolToolNames,
    ...(skillContext !== undefined ? { skillContext } : {}),
    ...(options.enforceAllowedTools ? { enforceAllowedTools: true } : {}),
    ...(options.allowedToolAliases ? { allowedToolAliases: options.allowedToolAliases } : {}),
  });

  // System messages the caller put at the head of `messages` are theirs: kept first and unchanged.
  const callerSystem = leadingSystemMessages(messages);
  const conversation = messages.slice(callerSystem.length);
  const request: ModelMessage[] =
    options.instructions !== undefined && options.instructions !== ''
      ? [{ role: 'system', content: options.instructions }, ...conversation]
      : [...conversation];
  const catalogOutcome = await settings.catalog?.renderWithOutcome(skillContext);
  // skill_search is for a catalog that cannot describe every skill: offered only when this one could not.
  const activeTools =
    settings.skillSearch === 'always' || catalogOutcome?.searchOffered === true
      ? selection.activeTools
      : selection.activeTools.filter((name) => name !== 'skill_search');
  const materialized = fromNeutral(
    await materializeRequest({
      messages: toNeutral(request),
      state,
      agentName,
      repository: options.repository,
      mode: settings.materialize,
      loadedSkills,
      catalog: catalogOutcome?.text ?? '',
      ...(skillContext !== undefined ? { skillContext } : {}),
    }),
  );

  // A tool allowed-tools holds back is explained as such, an execution tool (skill_run) included.
  const restricting =
    selection.withheld.length === 0
      ? []
      : loadedSkills.flatMap((entry) =>
          entry.skill !== undefined && entry.skill.allowedTools.length > 0 ? [entry.skill.name] : [],
        );
  const explained = await explainPoolToolCalls(
    materialized,
    poolToolNames,
    options.repository,
    context,
    { includeNonModelInvocable: includesNonModelInvocable(options) },
    { tools: selection.withheld, by: restricting },
  );
  if (settings.loadMode === 'once') commitTurnDelta(context, afterModelRequest(state, { agentName, mode: 'once' }));
  context.onStepPrepared?.({
    stepNumber,
    activeTools,
    loadedSkills: selection.loadedSkills,
    missingTools: selection.missing,
    materialize: settings.materialize,
  });
  const carried = madeForCall === undefined ? {} : skillContextCallOptions(madeForCall, options.skillToolNames);
  return { ...stepRequest(step, callerSystem, explained), activeTools, ...carried };
}

/**
 * The caller's system text goes first and is never replaced. ai 7 tells prepareStep what it is
 * and refuses system messages inside `messages`, so everything goes to `instructions`. ai 6 does
 * not tell, but sends its `system` before the messages: leaving `system` alone and sending ours
 * as leading messages gives the same order.
 */
function stepRequest(
  step: { stepNumber: number; messages: ModelMessage[] },
  callerSystem: readonly SystemModelMessage[],
  explained: ModelMessage[],
): { messages: ModelMessage[]; instructions?: SystemModelMessage[] } {
  if (!isInstructionsStep(step)) return { messages: [...callerSystem, ...explained] };
  const ours = leadingSystemMessages(explained);
  const instructions = [...callerInstructionsOfStep(step), ...callerSystem, ...ours];
  return { ...(instructions.length > 0 ? { instructions } : {}), messages: explained.slice(ours.length) };
}

function leadingSystemMessages(messages: readonly ModelMessage[]): SystemModelMessage[] {
  const firstOther = messages.findIndex((message) => message.role !== 'system');
  return messages.slice(0, firstOther === -1 ? messages.length : firstOther) as SystemModelMessage[];
}

async function explainPoolToolCalls(
  messages: ModelMessage[],
  poolToolNames: readonly string[],
  repository: SkillRepository,
  context: SkillCallContext,
  modelInvocation: ModelInvocationOptions,
  withheld: { tools: readonly string[]; by: readonly string[] },
): Promise<ModelMessage[]> {
  const names = [...findUnavailableToolCalls(messages)].filter(
    (name) => poolToolNames.includes(name) || withheld.tools.includes(name),
  );
  if (names.length === 0) return messages;
  const explanations = new Map<string, string>();
  for (const toolName of names)
    explanations.set(
      toolName,
      await describeUnavailableTool(
        repository,
        context.skillContext,
        toolName,
        modelInvocation,
        withheld.tools.includes(toolName) ? withheld.by : [],
      ),
    );
  return explainUnavailableToolCalls(messages, explanations);
}
