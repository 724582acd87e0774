import { renderCatalogWithReport } from '../disclosure/catalog.js';
import { buildTokenReport } from '../disclosure/token-report.js';
import { isSkillboxError } from '../errors.js';
import { modelHiddenReason } from '../format/model-invocation.js';
import { validateSkillDirectory } from '../format/validate-skill-directory.js';
import type { Skill, SkillRepository } from '../repository/types.js';
import type { RequirementCheck, RequirementChecker } from '../requirements/check-requirements.js';
import { readSkillRequirements } from '../requirements/skill-requirements.js';
import type { CatalogView, InspectedSkill, SkillLockStatus, SkillsView } from './inspector-views.js';
import { sourceOf } from './skill-origin.js';

/** Where declared requirements are checked: asked for only when a skill declares some. */
export type RequirementCheckerSource = () => Promise<{ checker: RequirementChecker; where: string }>;

/** What `describeSkills` adds beyond the repository: requirement checks and lock status. */
export interface DescribeSkillsOptions {
  requirementChecker?: RequirementCheckerSource;
  lockStatus?: (skill: Skill) => Promise<SkillLockStatus | undefined>;
}

/**
 * What the inspector's skills page shows, built from the repository's public methods only (list,
 * get, report), the token report and the strict validator: everything here is what a user of the
 * library can compute the same way.
 */
export async function describeSkills(
  repository: SkillRepository,
  options: DescribeSkillsOptions = {},
): Promise<SkillsView> {
  const { requirementChecker, lockStatus } = options;
  const [summaries, report, tokens] = await Promise.all([
    repository.list(),
    repository.report(),
    buildTokenReport({ repository, includeNonModelInvocable: true }),
  ]);
  const figures = new Map(tokens.skills.map((figure) => [figure.name, figure]));
  // A skill an MCP server lists but whose SKILL.md fails verification is shown as skipped, as
  // `skillbox list` shows it, not a failed page.
  const unverified: Array<{ path: string; reason: string }> = [];
  const loaded = (
    await Promise.all(
      summaries.map((summary) =>
        repository.get(summary.name).catch((error: unknown) => {
          if (!isSkillboxError(error) || !error.code.startsWith('MCP_SKILL_')) throw error;
          unverified.push({ path: `${summary.root ?? 'mcp'} ${summary.name}`, reason: error.message });
          return undefined;
        }),
      ),
    )
  ).filter((skill) => skill !== undefined);
  const declaring = loaded.some((skill) => readSkillRequirements(skill.metadata).requirements !== undefined);
  // Most libraries declare nothing: then no runtime is made and no probe runs.
  const checking = declaring && requirementChecker !== undefined ? await requirementChecker() : undefined;
  const skills = await Promise.all(
    loaded.map((skill) => {
      const figure = figures.get(skill.name);
      return inspectSkill(
        skill,
        { catalog: figure?.catalog_tokens ?? 0, body: figure?.body_tokens ?? 0, docs: figure?.docs_tokens ?? 0 },
        checking === undefined
          ? undefined
          : oneAtATime((declared) => checking.checker.checkSkill(declared, repository)),
        lockStatus,
      );
    }),
  );
  return {
    ...(checking === undefined ? {} : { requirementsCheckedIn: checking.where }),
    skills,
    skipped: [...report.skipped.map(({ path, reason }) => ({ path, reason })), ...unverified],
    shadowed: report.shadowed.map(({ name, path, winner }) => ({ name, path, winner })),
    warnings: [...report.warnings],
    totals: {
      catalog: tokens.totals.catalog,
      bodies: tokens.totals.bodies,
      bodiesAndDocs: tokens.totals.bodies_and_docs,
    },
  };
}

/**
 * `check` run one call at a time, as `skillbox list` runs it: each program not yet probed starts a
 * probe command in the runtime (a sandbox each), and a library of skills declaring different
 * programs would otherwise start them all at once.
 */
function oneAtATime<Result>(check: (skill: Skill) => Promise<Result>): (skill: Skill) => Promise<Result> {
  let queue: Promise<unknown> = Promise.resolve();
  return (skill) => {
    const result = queue.then(() => check(skill));
    queue = result.catch(() => undefined);
    return result;
  };
}

async function inspectSkill(
  skill: Skill,
  tokens: InspectedSkill['tokens'],
  check: ((skill: Skill) => Promise<RequirementCheck>) | undefined,
  lockStatus: DescribeSkillsOptions['lockStatus'],
): Promise<InspectedSkill> {
  const hiddenReason =
    skill.modelInvocable === false ? (modelHiddenReason(skill.frontmatter) ?? 'not model-invocable') : undefined;
  const strict = skill.path === undefined ? undefined : await validateSkillDirectory(skill.path);
  const requires = readSkillRequirements(skill.metadata).requirements;
  const requirementCheck = requires === undefined || check === undefined ? undefined : await check(skill);
  const lock = await lockStatus?.(skill);
  return {
    name: skill.name,
    description: skill.description,
    ...(skill.path === undefined ? {} : { path: skill.path }),
    ...(skill.root === undefined ? {} : { root: skill.root }),
    source: sourceOf(skill),
    ...(lock === undefined ? {} : { lock }),
    docs: [...skill.docs],
    tools: [...skill.tools],
    modelVisible: hiddenReason === undefined,
    ...(hiddenReason === undefined ? {} : { hiddenReason }),
    tokens,
    lenientWarnings: [...skill.warnings],
    ...(strict === undefined
      ? {}
      : { strict: { valid: strict.valid, errors: strict.errors, warnings: strict.warnings } }),
    ...(requires === undefined ? {} : { requires }),
    ...(requirementCheck === undefined
      ? {}
      : { requirementCheck: { met: requirementCheck.met, missing: requirementCheck.missing } }),
  };
}

/** The catalog the model sees for this repository, under a token budget when one is given. */
export async function describeCatalog(repository: SkillRepository, budgetTokens?: number): Promise<CatalogView> {
  const report = renderCatalogWithReport({
    skills: await repository.list(),
    ...(budgetTokens === undefined ? {} : { budget: { tokens: budgetTokens } }),
  });
  return {
    text: report.text,
    tokens: report.tokens,
    described: report.described,
    total: report.total,
    shortened: report.shortened,
    overBudget: report.overBudget,
  };
}
