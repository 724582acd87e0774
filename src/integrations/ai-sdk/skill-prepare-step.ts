import type { ModelMessage, PrepareStepFunction, PrepareStepResult, SystemModelMessage, Tool } from 'ai';
import { createCachedCatalog } from '../../disclosure/cached-catalog.js';
import type { CatalogBudget, CatalogFormat } from '../../disclosure/catalog.js';
import { applyDeclaredLoads } from '../../disclosure/declared-loads.js';
import { type LoadMode, parseLoadMode, parseMaxLoadedSkills } from '../../disclosure/load-mode.js';
import { type MaterializationMode, materializeRequest } from '../../disclosure/materialize-request.js';
import type { ModelMessage as NeutralModelMessage } from '../../disclosure/model-messages.js';
import { type ModelVisibilityOptions, modelVisibleSkills } from '../../disclosure/model-visibility.js';
import { evictLeastRecentlyTouched } from '../../disclosure/skill-transitions.js';
import { mergeDeltas, overlayState, type StateDelta, writeDelta } from '../../disclosure/state-delta.js';
import { afterModelRequest, beginTurn } from '../../disclosure/turn-lifecycle.js';
import type { SkillContext, SkillRepository } from '../../repository/types.js';
import { callerInstructionsOfStep, contextOfStep, conversationOfStep, isInstructionsStep } from './ai-sdk-versions.js';
import { selectActiveTools } from './dynamic-tool-selection.js';
import { SkillAgentConfigError } from './errors.js';
import { resolveSkillCallContext, type SkillCallContext } from './skill-call-context.js';
import {
  explainUnavailableToolCalls,
  findUnavailableToolCalls,
  unavailableToolMessage,
} from './unavailable-tool-calls.js';

/** Options of `createSkillPrepareStep`: the repository, the tool names and pool, materialisation, load mode and catalog. */
export interface SkillPrepareStepOptions {
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
  /**
   * Offer the model skills that say they are not for it (`disable-model-invocation: true`,
   * `metadata.internal: true`). Default false: they stay out of the catalog and the skill tools.
   */
  includeModelDisabled?: boolean;
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

/** Checks the `skillSearch` option of the toolkit and the prepare step. */
export function parseSkillSearchMode(value: unknown): SkillSearchMode {
  if (value === undefined) return 'over-budget';
  if (value === 'over-budget' || value === 'always' || value === 'never') return value;
  throw new SkillAgentConfigError(
    'skillSearch',
    `must be "over-budget", "always" or "never"; got ${JSON.stringify(value)}`,
  );
}

/** The AI SDK's and the disclosure layer's messages have the same shape; this is the one place that says so. */
function toNeutral(messages: readonly ModelMessage[]): NeutralModelMessage[] {
  return messages as unknown as NeutralModelMessage[];
}

function fromNeutral(messages: readonly NeutralModelMessage[]): ModelMessage[] {
  return messages as unknown as ModelMessage[];
}

function validateOptions(options: SkillPrepareStepOptions): {
  loadMode: LoadMode;
  maxLoadedSkills: number | undefined;
  materialize: MaterializationMode;
} {
  if (options.repository === undefined || typeof options.repository.list !== 'function')
    throw new SkillAgentConfigError('repository', 'a SkillRepository is required');
  if (!Array.isArray(options.skillToolNames))
    throw new SkillAgentConfigError('skillToolNames', 'must be an array of tool names');
  const materialize = options.materialize ?? 'tool-result';
  if (materialize !== 'system' && materialize !== 'tool-result')
    throw new SkillAgentConfigError(
      'materialize',
      `must be "system" or "tool-result"; got ${JSON.stringify(materialize)}`,
    );
  for (const name of Object.keys(options.toolPool ?? {})) {
    if (options.skillToolNames.includes(name))
      throw new SkillAgentConfigError('toolPool', `pool tool "${name}" has the name of a skill tool`);
  }
  return {
    loadMode: parseLoadMode(options.loadMode),
    maxLoadedSkills: parseMaxLoadedSkills(options.maxLoadedSkills),
    materialize,
  };
}

/** Writes a turn-level delta into the session state and tells the listener. */
function commitTurnDelta(context: SkillCallContext, delta: StateDelta): void {
  const changed: StateDelta = {};
  for (const [key, value] of Object.entries(delta))
    if ((context.state.get(key) ?? null) !== value) changed[key] = value;
  if (Object.keys(changed).length === 0) return;
  writeDelta(context.state, changed);
  context.onStateChange?.({ source: 'turn', delta: changed });
}

/** The explanation the model reads for a call to a pool tool that was not active. */
export async function describeUnavailableTool(
  repository: SkillRepository,
  skillContext: SkillContext | undefined,
  toolName: string,
  visibility: ModelVisibilityOptions = {},
): Promise<string> {
  const providedBy: string[] = [];
  // Only skills the model is offered are named: a hidden skill must not leak through this message.
  for (const summary of modelVisibleSkills(await repository.list(skillContext), visibility)) {
    try {
      if ((await repository.get(summary.name, skillContext)).tools.includes(toolName)) providedBy.push(summary.name);
    } catch {
      // A skill that cannot be read provides nothing.
    }
  }
  return unavailableToolMessage({ toolName, providedBy });
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
  const { loadMode, maxLoadedSkills, materialize } = validateOptions(options);
  const poolToolNames = Object.keys(options.toolPool ?? {});
  const skillSearch = parseSkillSearchMode(options.skillSearch);
  const catalog =
    options.catalog === false
      ? undefined
      : createCachedCatalog(options.repository, {
          tools: options.skillToolNames,
          ...(options.catalog?.format !== undefined ? { format: options.catalog.format } : {}),
          ...(options.catalog?.budget !== undefined ? { budget: options.catalog.budget } : {}),
          ...(options.catalog?.guidance !== undefined ? { guidance: options.catalog.guidance } : {}),
          ...(options.includeModelDisabled === true ? { includeModelDisabled: true } : {}),
          ...(skillSearch === 'always' ? { skillSearch: 'always' as const } : {}),
        });

  const prepare = async (step: {
    stepNumber: number;
    messages: ModelMessage[];
  }): Promise<PrepareStepResult<Record<string, Tool>>> => {
    const { stepNumber } = step;
    const messages = conversationOfStep(step);
    const context = resolveSkillCallContext(
      contextOfStep(step, options.skillToolNames),
      options.context,
      'prepareStep',
    );
    const { agentName, state, skillContext } = context;

    if (stepNumber === 0) {
      // Reset and declared loads land together or not at all: a bad declaration throws before anything is written.
      const reset = beginTurn(state, { agentName, mode: loadMode });
      const declared = await applyDeclaredLoads(overlayState(state, reset), {
        agentName,
        repository: options.repository,
        loads: context.skillLoads ?? [],
        ...(skillContext !== undefined ? { skillContext } : {}),
        ...(maxLoadedSkills !== undefined ? { maxLoadedSkills: maxLoadedSkills } : {}),
      });
      commitTurnDelta(context, mergeDeltas(reset, declared));
    }
    commitTurnDelta(context, evictLeastRecentlyTouched(state, { agentName, maxLoadedSkills: maxLoadedSkills }));

    const selection = await selectActiveTools({
      repository: options.repository,
      state,
      agentName,
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
    const catalogOutcome = catalog === undefined ? undefined : await catalog.renderWithOutcome(skillContext);
    // skill_search is for a catalog that cannot describe every skill: offered only when this one could not.
    const activeTools =
      skillSearch === 'always' || catalogOutcome?.searchOffered === true
        ? selection.activeTools
        : selection.activeTools.filter((name) => name !== 'skill_search');
    const materialized = fromNeutral(
      await materializeRequest({
        messages: toNeutral(request),
        state,
        agentName,
        repository: options.repository,
        mode: materialize,
        catalog: catalogOutcome?.text ?? '',
        ...(skillContext !== undefined ? { skillContext } : {}),
      }),
    );

    const explained = await explainPoolToolCalls(materialized, poolToolNames, options.repository, context, {
      includeModelDisabled: options.includeModelDisabled === true,
    });
    if (loadMode === 'once') commitTurnDelta(context, afterModelRequest(state, { agentName, mode: 'once' }));
    context.onStepPrepared?.({
      stepNumber,
      activeTools,
      loadedSkills: selection.loadedSkills,
      missingTools: selection.missing,
    });

    // The caller's system text goes first and is never replaced. ai 7 tells prepareStep what it is
    // and refuses system messages inside `messages`, so everything goes to `instructions`. ai 6 does
    // not tell, but sends its `system` before the messages: leaving `system` alone and sending ours
    // as leading messages gives the same order.
    if (!isInstructionsStep(step)) return { messages: [...callerSystem, ...explained], activeTools };
    const ours = leadingSystemMessages(explained);
    const instructions = [...callerInstructionsOfStep(step), ...callerSystem, ...ours];
    return {
      ...(instructions.length > 0 ? { instructions } : {}),
      messages: explained.slice(ours.length),
      activeTools,
    };
  };
  return prepare as PrepareStepFunction<Record<string, Tool>>;
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
  visibility: ModelVisibilityOptions,
): Promise<ModelMessage[]> {
  const names = [...findUnavailableToolCalls(messages)].filter((name) => poolToolNames.includes(name));
  if (names.length === 0) return messages;
  const explanations = new Map<string, string>();
  for (const toolName of names)
    explanations.set(toolName, await describeUnavailableTool(repository, context.skillContext, toolName, visibility));
  return explainUnavailableToolCalls(messages, explanations);
}
