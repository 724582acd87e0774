import type { SkillContext, SkillRepository } from '../repository/types.js';
import type { StateReader } from '../state/state-delta.js';
import { enforceAllowedTools } from './allowed-tools.js';
import { type ResolvedLoadedSkill, resolveLoadedSkills } from './resolve-loaded-skills.js';
import { resolveSelection } from './selection.js';

/** Input of `selectActiveTools`: the repository, state, agent, skill tools, pool tools and allowed-tools enforcement. */
export interface ToolSelectionOptions {
  repository: SkillRepository;
  state: StateReader;
  agentName: string;
  skillContext?: SkillContext;
  /** The skill tools (skill_load, ..., skill_run, workspace_exec): active whatever is loaded. */
  skillToolNames: readonly string[];
  /** Names of the tools in the pool, in the order they are registered. */
  poolToolNames: readonly string[];
  /** Narrow active tools to the loaded skills' `allowed-tools` (see allowed-tools.ts). */
  enforceAllowedTools?: boolean;
  allowedToolAliases?: Readonly<Record<string, readonly string[]>>;
  /**
   * The loaded skills as this step resolved them (`resolveLoadedSkills`), shared with
   * materialisation so the repository is asked once per step. Absent: read from `state` and `repository`.
   */
  loadedSkills?: readonly ResolvedLoadedSkill[];
}

/** What `selectActiveTools` chose: the active tools, the loaded skills, the named tools that are missing or withheld. */
export interface ToolSelection {
  /** What the model may see and call in the next step. */
  activeTools: string[];
  /** Loaded skills, least recently touched first. */
  loadedSkills: string[];
  /** Tools a loaded skill names that the pool does not hold (a configuration gap worth a warning). */
  missing: Array<{ skill: string; tool: string }>;
  /** Tools `allowed-tools` enforcement took out. */
  withheld: string[];
}

/**
 * Dynamic tool selection (through the AI SDK's `activeTools`): before any skill
 * is loaded only the skill tools are active; a loaded skill activates the pool tools its `Tools:`
 * section names, narrowed by `skill_select_tools`. Pool tools no loaded skill names stay inactive.
 */
export async function selectActiveTools(options: ToolSelectionOptions): Promise<ToolSelection> {
  const pool = new Set(options.poolToolNames);
  const loaded =
    options.loadedSkills ??
    (await resolveLoadedSkills(options.state, options.agentName, options.repository, options.skillContext));
  const wanted = new Set<string>();
  const missing: ToolSelection['missing'] = [];
  const declarations: Array<{ name: string; allowedTools: readonly string[] }> = [];
  for (const entry of loaded) {
    const skill = entry.skill;
    // A skill that vanished or became hidden since it was loaded activates nothing.
    if (skill === undefined) continue;
    declarations.push({ name: skill.name, allowedTools: skill.allowedTools });
    for (const toolName of resolveSelection(entry.tools, skill.tools)) {
      if (pool.has(toolName)) wanted.add(toolName);
      else if (!options.skillToolNames.includes(toolName)) missing.push({ skill: skill.name, tool: toolName });
    }
  }
  // Pool order, not load order, so the tool list the provider sees does not reshuffle as skills load.
  const candidates = [
    ...options.skillToolNames,
    ...options.poolToolNames.filter((name) => wanted.has(name) && !options.skillToolNames.includes(name)),
  ];
  const { active, withheld } = options.enforceAllowedTools
    ? enforceAllowedTools({
        candidates,
        disclosureTools: options.skillToolNames,
        loadedSkills: declarations,
        ...(options.allowedToolAliases ? { aliases: options.allowedToolAliases } : {}),
      })
    : { active: candidates, withheld: [] as string[] };
  return { activeTools: active, loadedSkills: loaded.map((entry) => entry.name), missing, withheld };
}
