import { SkillboxConfigError } from '../config/config-error.js';
import { validateOptions } from '../config/validate-options.js';
import { includesNonModelInvocable, type ModelInvocationOptions } from '../disclosure/model-invocable-skills.js';
import type { SkillRepository } from '../repository/types.js';
import { createSkillListDocsTool } from './skill-list-docs-tool.js';
import { createSkillListTool } from './skill-list-tool.js';
import { createSkillListToolsTool } from './skill-list-tools-tool.js';
import { createSkillLoadTool } from './skill-load-tool.js';
import { createSkillReadTool, defaultReadPageBytes } from './skill-read-tool.js';
import { createSkillSearchTool } from './skill-search-tool.js';
import { createSkillSelectDocsTool } from './skill-select-docs-tool.js';
import { createSkillSelectToolsTool } from './skill-select-tools-tool.js';
import { type SkillToolSettings, skillNameSchema } from './skill-tool-support.js';
import { skillToolRuleProblems, skillToolsOptionsSchema } from './skill-tools-options-schema.js';
import type { DisclosureToolName } from './tool-names.js';
import type { ToolDefinition } from './types.js';

/** A preset set of tools: `knowledge` (load and read skills) or `full` (also run them). */
export type SkillToolProfile = 'knowledge' | 'full';

/** Options of `createSkillTools`: the repository, the profile or tool names, and their limits. */
export interface SkillToolsOptions extends ModelInvocationOptions {
  repository: SkillRepository;
  /** `knowledge` (default), `full`, or the exact tool names to register. */
  profile?: SkillToolProfile | readonly string[];
  /** The workspace layer's tools (`skill_run`, `workspace_exec`); required by `full`. */
  executionTools?: readonly ToolDefinition[];
  /** Visible skill names: the `skill` input becomes an enum of them (up to 256 names). */
  skillNames?: readonly string[];
  /** Names of the tools skills may activate (their `Tools:` sections); `full` then adds skill_list_tools and skill_select_tools. */
  toolPool?: readonly string[];
  /** Keep at most this many loaded skills per agent, evicting the least recently touched. */
  maxLoadedSkills?: number;
  /** Page size of skill_read in bytes of UTF-8 (default 20,000). */
  readPageBytes?: number;
  /**
   * Add `skill_search` to the profile's tools (default false; a profile given as names may name it
   * instead). The integrations add it themselves when their catalog is over its budget
   * (docs/skill-search.md).
   */
  skillSearch?: boolean;
  /** skill_search also indexes SKILL.md bodies (default false: names and descriptions). */
  searchBodies?: boolean;
}

/** The knowledge tools, in the order they are registered. */
export const knowledgeToolNames: readonly DisclosureToolName[] = [
  'skill_load',
  'skill_list_docs',
  'skill_select_docs',
  'skill_read',
];

/** The tool-selection pair, registered by `full` when a tool pool is configured. */
export const toolSelectionToolNames: readonly DisclosureToolName[] = ['skill_list_tools', 'skill_select_tools'];

/**
 * The profile an agent integration registers: the one asked for, else `full` with execution tools
 * and `knowledge` without; `knowledge` with a tool pool also gets the tool-selection pair, so the
 * model can see and select what a skill offers from the pool.
 */
export function integrationSkillToolProfile(
  profile: SkillToolProfile | readonly string[] | undefined,
  hasExecution: boolean,
  hasPool: boolean,
): SkillToolProfile | readonly string[] {
  const chosen = profile ?? (hasExecution ? 'full' : 'knowledge');
  return chosen === 'knowledge' && hasPool ? [...knowledgeToolNames, ...toolSelectionToolNames] : chosen;
}

// Keyed by the name union, so a name without a builder (or a builder without a name) fails to compile.
const builders: Record<DisclosureToolName, (settings: SkillToolSettings) => ToolDefinition> = {
  skill_list: createSkillListTool as (settings: SkillToolSettings) => ToolDefinition,
  skill_load: createSkillLoadTool as (settings: SkillToolSettings) => ToolDefinition,
  skill_list_docs: createSkillListDocsTool as (settings: SkillToolSettings) => ToolDefinition,
  skill_select_docs: createSkillSelectDocsTool as (settings: SkillToolSettings) => ToolDefinition,
  skill_read: createSkillReadTool as (settings: SkillToolSettings) => ToolDefinition,
  skill_list_tools: createSkillListToolsTool as (settings: SkillToolSettings) => ToolDefinition,
  skill_select_tools: createSkillSelectToolsTool as (settings: SkillToolSettings) => ToolDefinition,
  skill_search: createSkillSearchTool as (settings: SkillToolSettings) => ToolDefinition,
};

function profileNames(options: SkillToolsOptions, executionNames: readonly string[]): string[] {
  // Checked by skillToolsOptionsSchema: `full` has execution tools, a list names only known tools.
  const profile = options.profile ?? 'knowledge';
  if (profile === 'knowledge') return [...knowledgeToolNames];
  if (profile === 'full') {
    const selection = (options.toolPool?.length ?? 0) > 0 ? toolSelectionToolNames : [];
    return [...knowledgeToolNames, ...selection, ...executionNames];
  }
  return [...new Set(profile)];
}

/**
 * The model-facing skill tools for one repository. Tools write state only through
 * `context.state.set`, so a caller that drops the writes of a failed call keeps state unchanged.
 */
export function createSkillTools(options: SkillToolsOptions): ToolDefinition[] {
  validateOptions('createSkillTools', skillToolsOptionsSchema, options);
  return skillToolsOf(options);
}

/**
 * `createSkillTools` for an integration whose own schema checked the options it was given: only the
 * rules about the execution tools it derived from them (a runtime's `skill_run`, ...) are left.
 */
export function createCheckedSkillTools(options: SkillToolsOptions): ToolDefinition[] {
  const problems = skillToolRuleProblems(options);
  if (problems.length > 0) throw new SkillboxConfigError('createSkillTools', problems);
  return skillToolsOf(options);
}

function skillToolsOf(options: SkillToolsOptions): ToolDefinition[] {
  const executionTools = options.executionTools ?? [];
  const executionNames = executionTools.map((tool) => tool.name);
  const pageBytes = options.readPageBytes ?? defaultReadPageBytes;
  // 0 means no limit, as undefined does.
  const maxLoadedSkills = options.maxLoadedSkills || undefined;
  const settings: SkillToolSettings = {
    repository: options.repository,
    skillSchema: skillNameSchema(options.skillNames),
    readPageBytes: pageBytes,
    includeNonModelInvocable: includesNonModelInvocable(options),
    ...(maxLoadedSkills === undefined ? {} : { maxLoadedSkills }),
    ...(options.searchBodies === true ? { searchBodies: true } : {}),
  };
  const names = profileNames(options, executionNames);
  if (options.skillSearch === true && !names.includes('skill_search')) {
    // After the knowledge tools, before the execution tools: the order the model reads them in.
    const firstExecution = names.findIndex((name) => executionNames.includes(name));
    names.splice(firstExecution === -1 ? names.length : firstExecution, 0, 'skill_search');
  }
  return names.map((name) => {
    const build = (builders as Record<string, ((settings: SkillToolSettings) => ToolDefinition) | undefined>)[name];
    if (build !== undefined) return build(settings);
    return executionTools.find((tool) => tool.name === name)!;
  });
}
