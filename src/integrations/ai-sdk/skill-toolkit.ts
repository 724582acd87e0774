import type { PrepareStepFunction, Tool } from 'ai';
import type { SkillRepository } from '../../repository/types.js';
import { createSkillTools, knowledgeToolNames, toolSelectionToolNames, type SkillToolProfile } from '../../tools/create-skill-tools.js';
import type { ToolDefinition } from '../../tools/types.js';
import { SkillAgentConfigError } from './errors.js';
import { createSkillPrepareStep, type SkillPrepareStepOptions } from './skill-prepare-step.js';
import { toAiSdkTools } from './tool-adapter.js';

/** Options of `createSkillToolkit`: the repository, the tool profile, execution tools and the `prepareStep` options. */
export interface SkillToolkitOptions extends Omit<SkillPrepareStepOptions, 'skillToolNames' | 'repository'> {
  repository: SkillRepository;
  /**
   * `knowledge` (default without execution tools), `full` (default with them) or exact tool names.
   * With a tool pool, `knowledge` also registers skill_list_tools and skill_select_tools.
   */
  profile?: SkillToolProfile | readonly string[];
  /** The workspace layer's `skill_run` and `workspace_exec`. */
  executionTools?: readonly ToolDefinition[];
  /**
   * The names the callers of this toolkit can see: the `skill` input becomes an enum of them (a
   * plain string when absent, empty or above `maxSkillEnumValues`). Callers that see different
   * skills need different toolkits: see `createVisibleSkillToolkits`.
   */
  skillNames?: readonly string[];
}

/** Everything `generateText` / `streamText` / `ToolLoopAgent` need for skills. */
export interface SkillToolkit {
  /** Skill tools and pool tools; `prepareStep` decides which are active in each step. */
  tools: Record<string, Tool>;
  prepareStep: PrepareStepFunction<Record<string, Tool>>;
  /** The skill tools (always active), in registration order. */
  skillToolNames: string[];
  /** The pool tools, in registration order. */
  poolToolNames: string[];
}

function resolveProfile(options: SkillToolkitOptions, hasPool: boolean): SkillToolProfile | readonly string[] {
  const profile = options.profile ?? ((options.executionTools?.length ?? 0) > 0 ? 'full' : 'knowledge');
  return profile === 'knowledge' && hasPool ? [...knowledgeToolNames, ...toolSelectionToolNames] : profile;
}

/**
 * Skills for an AI SDK tool loop in one call: the neutral skill tools adapted to AI SDK tools, the
 * pool tools, and the `prepareStep` that does progressive disclosure. Pass a SkillCallContext as
 * `experimental_context` on each call (see createSkillCallContext).
 */
export function createSkillToolkit(options: SkillToolkitOptions): SkillToolkit {
  const toolPool = options.toolPool ?? {};
  if (typeof toolPool !== 'object' || toolPool === null || Array.isArray(toolPool)) throw new SkillAgentConfigError('toolPool', 'must be a record of AI SDK tools by name');
  const poolToolNames = Object.keys(toolPool);
  const definitions = createSkillTools({
    repository: options.repository,
    profile: resolveProfile(options, poolToolNames.length > 0),
    ...(options.executionTools !== undefined ? { executionTools: options.executionTools } : {}),
    ...(poolToolNames.length > 0 ? { toolPool: poolToolNames } : {}),
    ...(options.maxLoadedSkills !== undefined ? { maxLoadedSkills: options.maxLoadedSkills } : {}),
    ...(options.skillNames !== undefined ? { skillNames: options.skillNames } : {}),
    ...(options.includeModelDisabled === true ? { includeModelDisabled: true } : {}),
  });
  const skillToolNames = definitions.map((definition) => definition.name);
  // Refuses a pool tool named like a skill tool, before anything is adapted.
  const prepareStep = createSkillPrepareStep({ ...options, skillToolNames });
  const adapted = toAiSdkTools(definitions, options.context !== undefined ? { context: options.context } : {});
  return {
    tools: { ...adapted, ...toolPool },
    prepareStep,
    skillToolNames,
    poolToolNames,
  };
}
