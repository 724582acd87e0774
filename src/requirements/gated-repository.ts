import { filterSkills } from '../repository/filter-skills.js';
import type { Skill, SkillContext, SkillRepository, SkillSummary } from '../repository/types.js';
import type { RequirementCheck, RequirementChecker } from './check-requirements.js';

/** What the model is shown of a skill whose requirements are not met: `hide` it, or `mark` its description. */
export type UnmetRequirementsMode = 'hide' | 'mark';

/** The text a marked description ends with. */
export function unmetRequirementsMark(check: RequirementCheck): string {
  return ` [Cannot run here: missing ${check.missingNames.join(', ')}.]`;
}

/**
 * A view of `repository` for the model's tools and catalog where skills whose declared
 * requirements are not met where commands run are hidden (like a skill the caller may not see:
 * unknown to every method) or marked (their description ends with what is missing, so the model
 * can say why it cannot use them). Checks are kept per skill until the repository's generation
 * moves; a repository without one is checked again when a skill's description or path changed.
 */
export function gateRepository(
  repository: SkillRepository,
  checker: RequirementChecker,
  mode: UnmetRequirementsMode,
): SkillRepository {
  const checks = new Map<string, { generation: number | undefined; key: string; check: Promise<RequirementCheck> }>();
  const checkOf = (summary: SkillSummary, context: SkillContext | undefined): Promise<RequirementCheck> => {
    const generation = repository.generation?.();
    const key = `${summary.description}\u0000${summary.path ?? ''}\u0000${JSON.stringify(context ?? null)}`;
    const known = checks.get(summary.name);
    if (known !== undefined && known.generation === generation && known.key === key) return known.check;
    const check = repository.get(summary.name, context).then((skill) => checker.checkSkill(skill, repository, context));
    checks.set(summary.name, { generation, key, check });
    check.catch(() => checks.delete(summary.name));
    return check;
  };
  if (mode === 'hide')
    return filterSkills(repository, async (summary, context) => (await checkOf(summary, context)).met);
  const marked = async <T extends SkillSummary>(summary: T, context: SkillContext | undefined): Promise<T> => {
    const check = await checkOf(summary, context);
    return check.met ? summary : { ...summary, description: `${summary.description}${unmetRequirementsMark(check)}` };
  };
  const view: SkillRepository = {
    list: async (context) => Promise.all((await repository.list(context)).map((summary) => marked(summary, context))),
    get: async (name, context): Promise<Skill> => marked(await repository.get(name, context), context),
    listFiles: (name, context) => repository.listFiles(name, context),
    readFile: (name, path, context) => repository.readFile(name, path, context),
    report: () => repository.report(),
    refresh: () => repository.refresh(),
  };
  if (repository.generation !== undefined) view.generation = () => repository.generation?.();
  return view;
}
