import type { SkillSummary } from '../repository/types.js';

/**
 * Whether the model is offered a skill is called "model-invocable" everywhere: SKILL.md turns it
 * off with `disable-model-invocation: true` (or `metadata.internal: true`), the summary records it
 * as `modelInvocable: false`, and such a skill is left out of the catalog, skill_list and the
 * `skill` enum, and the model's tools treat it as unknown until a caller loads it.
 * `includeNonModelInvocable: true` offers it like any other. (Which skills a caller may see at all
 * is a different thing, "visibility": a repository `filter`, see docs/progressive-disclosure.md.)
 */
export interface ModelInvocationOptions {
  /** Offer the model skills that are not model-invocable as well (default false). */
  includeNonModelInvocable?: boolean;
}

/** Whether the options offer skills that are not model-invocable. */
export function includesNonModelInvocable(options: ModelInvocationOptions = {}): boolean {
  return options.includeNonModelInvocable === true;
}

/** True when the model may be offered this skill: it is model-invocable, or the options include those that are not. */
export function isModelInvocable(
  summary: Pick<SkillSummary, 'modelInvocable'>,
  options: ModelInvocationOptions = {},
): boolean {
  return includesNonModelInvocable(options) || summary.modelInvocable !== false;
}

/** The skills the model may be offered, in the order given. */
export function modelInvocableSkills<T extends Pick<SkillSummary, 'modelInvocable'>>(
  skills: readonly T[],
  options: ModelInvocationOptions = {},
): T[] {
  return skills.filter((skill) => isModelInvocable(skill, options));
}
