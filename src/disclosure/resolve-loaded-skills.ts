import type { Skill, SkillContext, SkillRepository } from '../repository/types.js';
import type { StateReader } from '../state/state-delta.js';
import { type LoadedSkill, readLoadedSkills } from './loaded-skills.js';

/** A loaded skill as state records it, with the skill the repository gave for it when it was resolved. */
export interface ResolvedLoadedSkill extends LoadedSkill {
  /** Undefined when the repository no longer offers the skill (removed, or hidden from this caller): it shows and activates nothing. */
  skill: Skill | undefined;
}

/**
 * The agent's loaded skills, least recently touched first, each fetched from the repository once.
 * One model step resolves them once and hands the result to everything that needs them (tool
 * selection, materialisation), instead of each of those asking the repository again: a folder
 * repository's `get` re-reads the skill's folder.
 *
 * Not cached across steps: the repository's `generation()` grows only when what `list()` returns
 * changes, so an edited body or doc would go unseen until the next refresh.
 */
export async function resolveLoadedSkills(
  state: StateReader,
  agentName: string,
  repository: SkillRepository,
  skillContext?: SkillContext,
): Promise<ResolvedLoadedSkill[]> {
  const resolved: ResolvedLoadedSkill[] = [];
  for (const entry of readLoadedSkills(state, agentName)) {
    let skill: Skill | undefined;
    try {
      skill = await repository.get(entry.name, skillContext);
    } catch {
      // A skill that vanished or became hidden since it was loaded is kept as a name only.
      skill = undefined;
    }
    resolved.push({ ...entry, skill });
  }
  return resolved;
}
