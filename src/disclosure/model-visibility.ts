import type { SkillSummary } from '../repository/types.js';

/**
 * The default model-visibility rule: a skill whose summary says `modelInvocable: false` is not
 * offered to the model (catalog, skill_list, the `skill` enum) and the model's tools treat it as
 * unknown until a caller loads it. `includeModelDisabled: true` turns the rule off.
 */
export interface ModelVisibilityOptions {
  includeModelDisabled?: boolean;
}

/** True when the model may be offered this skill (`modelInvocable` unless `includeModelDisabled`). */
export function isModelVisible(
  summary: Pick<SkillSummary, 'modelInvocable'>,
  options: ModelVisibilityOptions = {},
): boolean {
  return options.includeModelDisabled === true || summary.modelInvocable !== false;
}

/** The skills the model may be offered, in the order given. */
export function modelVisibleSkills<T extends Pick<SkillSummary, 'modelInvocable'>>(
  skills: readonly T[],
  options: ModelVisibilityOptions = {},
): T[] {
  return skills.filter((skill) => isModelVisible(skill, options));
}
