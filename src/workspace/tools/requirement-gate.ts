import { SkillNotFoundError } from '../../repository/errors.js';
import type { Skill } from '../../repository/types.js';
import { createRequirementChecker, type RequirementChecker } from '../../requirements/check-requirements.js';
import { SkillToolError } from '../../tools/errors.js';
import type { ToolContext } from '../../tools/types.js';
import type { ResolvedExecutionOptions } from './execution-options.js';

// One checker per set of execution tools: its runtime, environment and network do not change.
const checkers = new WeakMap<ResolvedExecutionOptions, RequirementChecker>();

/** The checker for where these execution tools run commands. */
export function requirementCheckerFor(options: ResolvedExecutionOptions): RequirementChecker {
  let checker = checkers.get(options);
  if (checker === undefined) {
    checker = createRequirementChecker({
      runtime: options.workspaces.runtime,
      environment: options.hostEnvironment,
      network: options.network,
      restricted: options.policy.restricted,
    });
    checkers.set(options, checker);
  }
  return checker;
}

/**
 * The skill `skill_run` names, fetched once for the call: the requirement gate, the retry check and
 * staging all read this one definition instead of asking the repository each (every `get` of a
 * folder skill lists its files). Undefined for an unknown skill: the run's own error names it.
 */
export async function skillOfCall(
  options: ResolvedExecutionOptions,
  skillName: string,
  context: ToolContext,
): Promise<Skill | undefined> {
  const repository = options.repository ?? options.workspaces.repository;
  try {
    return await repository.get(skillName, context.skillContext);
  } catch (error) {
    if (error instanceof SkillNotFoundError) return undefined;
    throw error;
  }
}

/**
 * Refuses `skill_run` for a skill whose declared requirements (docs/skill-requirements.md) are not
 * met where the command would run, naming each missing thing, before anything is staged or run: the
 * command would fail anyway, later and less clearly. An unknown skill is left to the run's own error.
 */
export async function refuseUnmetRequirements(
  options: ResolvedExecutionOptions,
  skill: Skill | undefined,
  context: ToolContext,
): Promise<void> {
  if (skill === undefined) return;
  const repository = options.repository ?? options.workspaces.repository;
  const check = await requirementCheckerFor(options).checkSkill(skill, repository, context.skillContext);
  if (check.met) return;
  throw new SkillToolError(
    `skill_run: skill "${skill.name}" cannot run here; it needs ${check.missing.join('; ')}. Tell the user what is missing instead of retrying.`,
  );
}
