import { renderCatalogWithReport } from '../disclosure/catalog.js';
import { buildTokenReport } from '../disclosure/token-report.js';
import { modelHiddenReason } from '../format/model-invocation.js';
import { validateSkillDirectory } from '../format/validate-skill-directory.js';
import type { Skill, SkillRepository } from '../repository/types.js';
import { readSkillRequirements } from '../requirements/skill-requirements.js';
import type { CatalogView, InspectedSkill, SkillsView } from './inspector-views.js';

/**
 * What the inspector's skills page shows, built from the repository's public methods only (list,
 * get, report), the token report and the strict validator: everything here is what a user of the
 * library can compute the same way.
 */
export async function describeSkills(repository: SkillRepository): Promise<SkillsView> {
  const [summaries, report, tokens] = await Promise.all([
    repository.list(),
    repository.report(),
    buildTokenReport({ repository, includeNonModelInvocable: true }),
  ]);
  const figures = new Map(tokens.skills.map((figure) => [figure.name, figure]));
  const skills = await Promise.all(
    summaries.map(async (summary) => {
      const skill = await repository.get(summary.name);
      const figure = figures.get(skill.name);
      return inspectSkill(skill, {
        catalog: figure?.catalog_tokens ?? 0,
        body: figure?.body_tokens ?? 0,
        docs: figure?.docs_tokens ?? 0,
      });
    }),
  );
  return {
    skills,
    skipped: report.skipped.map(({ path, reason }) => ({ path, reason })),
    shadowed: report.shadowed.map(({ name, path, winner }) => ({ name, path, winner })),
    warnings: [...report.warnings],
    totals: {
      catalog: tokens.totals.catalog,
      bodies: tokens.totals.bodies,
      bodiesAndDocs: tokens.totals.bodies_and_docs,
    },
  };
}

async function inspectSkill(skill: Skill, tokens: InspectedSkill['tokens']): Promise<InspectedSkill> {
  const hiddenReason =
    skill.modelInvocable === false ? (modelHiddenReason(skill.frontmatter) ?? 'not model-invocable') : undefined;
  const strict = skill.path === undefined ? undefined : await validateSkillDirectory(skill.path);
  const requires = readSkillRequirements(skill.metadata).requirements;
  return {
    name: skill.name,
    description: skill.description,
    ...(skill.path === undefined ? {} : { path: skill.path }),
    ...(skill.root === undefined ? {} : { root: skill.root }),
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
