import type { Tool } from 'ai';
import { validateOptions } from '../../config/validate-options.js';
import { includesNonModelInvocable, modelInvocableSkills } from '../../disclosure/model-invocable-skills.js';
import type { SkillContext, SkillRepository } from '../../repository/types.js';
import { skillEnumValues } from '../../tools/skill-tool-support.js';
import { executionSetup } from '../../workspace/tools/execution-setup.js';
import type { WorkspaceManager } from '../../workspace/workspace-manager.js';
import { visibleSkillToolkitsOptionsSchema } from './skill-agent-options-schema.js';
import { buildSkillToolkit, type SkillToolkit, type SkillToolkitOptions } from './skill-toolkit.js';

/** Options of `createVisibleSkillToolkits`: the toolkit options and how many per-audience toolkits to cache. */
export interface VisibleSkillToolkitsOptions extends Omit<SkillToolkitOptions, 'skillNames'> {
  /** Toolkits kept, one per distinct list of visible names; the least recently used goes first. Default 64. */
  maxCachedToolkits?: number;
}

/** Toolkits whose `skill` input is an enum of exactly the skills the caller can see. */
export interface VisibleSkillToolkits {
  /** Skill tools, then pool tools: the same names in every toolkit. */
  readonly toolNames: readonly string[];
  readonly poolToolNames: readonly string[];
  /** The tools of the toolkit whose `skill` input is a plain string: the names and schemas to declare where no caller is known yet. */
  readonly tools: Readonly<Record<string, Tool>>;
  /** The workspace manager when given a `runtime` or `workspaces`: one for every toolkit. */
  readonly workspaces: WorkspaceManager | undefined;
  /**
   * The toolkit for the skills `repository.list(context)` returns now. Callers that see the same
   * names share one toolkit; above `maxSkillEnumValues` names (or with none) they all share the one
   * whose `skill` input is a plain string.
   */
  forContext(context?: SkillContext): Promise<SkillToolkit>;
}

/** How many per-audience toolkits `createVisibleSkillToolkits` keeps by default. */
export const defaultMaxCachedToolkits = 64;

/**
 * Builds a toolkit per distinct visible-name list and keeps the most recently used ones, so
 * repeated calls from the same audience reuse their tools. The tool set is built from the names the
 * repository lists at the time of the call; a skill added later yields a new list, hence a new
 * toolkit, on the next call.
 */
export function createVisibleSkillToolkits(options: VisibleSkillToolkitsOptions): VisibleSkillToolkits {
  validateOptions('createVisibleSkillToolkits', visibleSkillToolkitsOptionsSchema, options);
  return buildVisibleSkillToolkits(options);
}

/** `createVisibleSkillToolkits` for options a schema already checked (the agent's). */
export function buildVisibleSkillToolkits(options: VisibleSkillToolkitsOptions): VisibleSkillToolkits {
  const {
    maxCachedToolkits = defaultMaxCachedToolkits,
    runtime: _runtime,
    workspaces: _workspaces,
    execution: _execution,
    executionTools: _executionTools,
    ...rest
  } = options;
  // Required by the schema that checked the options (toolkitRules in skill-agent-options-schema.ts).
  const repository = options.repository as SkillRepository;
  // One workspace manager for all toolkits: a toolkit per audience must not mean a manager per audience.
  // Passed whole to each toolkit: its requirement gate (unmetRequirements) comes with the tools.
  const setup = executionSetup(options, repository);
  const { workspaces } = setup;
  const toolkitOptions = { ...rest, repository };
  // Built now so that bad options fail at construction, and reused as the plain-string toolkit.
  const unrestricted = buildSkillToolkit(toolkitOptions, setup);
  const cache = new Map<string, SkillToolkit>();

  return {
    toolNames: Object.keys(unrestricted.tools),
    poolToolNames: unrestricted.poolToolNames,
    tools: unrestricted.tools,
    workspaces,
    async forContext(context?: SkillContext): Promise<SkillToolkit> {
      // Skills that are not model-invocable are not in the catalog, so they are not in the enum either.
      const names = skillEnumValues(
        modelInvocableSkills(await toolkitOptions.repository.list(context), {
          includeNonModelInvocable: includesNonModelInvocable(toolkitOptions),
        }).map((summary) => summary.name),
      );
      if (names.length === 0) return unrestricted;
      const key = JSON.stringify(names);
      let toolkit = cache.get(key);
      if (toolkit !== undefined) {
        cache.delete(key); // re-inserted below: Map order is the recency order
      } else {
        toolkit = buildSkillToolkit({ ...toolkitOptions, skillNames: names }, setup);
        if (cache.size >= maxCachedToolkits) cache.delete(cache.keys().next().value!);
      }
      cache.set(key, toolkit);
      return toolkit;
    },
  };
}
