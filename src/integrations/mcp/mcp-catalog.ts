import { type CatalogBudget, renderCatalog } from '../../disclosure/catalog.js';
import { countTokens } from '../../disclosure/token-counter.js';
import { codePointLength } from '../../format/code-point-length.js';
import type { SkillSummary } from '../../repository/types.js';

function shortenedCatalogNote(budget: CatalogBudget, searchOffered: boolean): string {
  const limit = [
    budget.tokens === undefined ? undefined : `${budget.tokens} tokens`,
    budget.characters === undefined ? undefined : `${budget.characters} characters`,
  ]
    .filter((part) => part !== undefined)
    .join(' and ');
  return `Note: this skill list was shortened to fit ${limit}: descriptions ending in "…" are cut, and skills under "Other skills" are listed by name only. skill_load returns a skill's full instructions.${searchOffered ? ' To find skills, call skill_search with words describing the task.' : ''}`;
}

/** Whether skill_search is offered with the catalog: always, or only when the budget shortened it. */
export interface McpCatalogSearch {
  readonly mode: 'always' | 'over-budget';
  readonly offered: boolean;
}

/**
 * The catalog the MCP server sends (in its instructions and in skill_load's description), within
 * the budget. Built again when the skills on disk change, so skill_load's description follows.
 */
export function renderMcpCatalog(
  summaries: readonly SkillSummary[],
  toolNames: readonly string[],
  includeNonModelInvocable: boolean,
  budget: CatalogBudget,
  search: McpCatalogSearch = { mode: 'over-budget', offered: false },
): string {
  // The note below says the list is shortened and points to skill_search, so the guidance leaves
  // its own line out: the budget pays for one pointer, not two.
  const catalogOptions = {
    skills: [...summaries],
    tools: search.mode === 'always' ? [...toolNames] : toolNames.filter((name) => name !== 'skill_search'),
    includeNonModelInvocable,
    skillSearch: search.mode,
  };
  const full = renderCatalog(catalogOptions);
  const catalog = renderCatalog({ ...catalogOptions, budget });
  if (catalog === full) return catalog;
  // The model must know that what it reads is not every description in full, or it will take a
  // cut description for the skill's whole purpose. The note's own size comes out of the budget.
  const note = `\n\n${shortenedCatalogNote(budget, search.offered)}`;
  const roomLeft = (limit: number | undefined, used: number) =>
    limit === undefined ? undefined : Math.max(1, limit - used);
  const tokens = roomLeft(budget.tokens, countTokens(note));
  const characters = roomLeft(budget.characters, codePointLength(note));
  return `${renderCatalog({ ...catalogOptions, budget: { ...(tokens === undefined ? {} : { tokens }), ...(characters === undefined ? {} : { characters }) } })}${note}`;
}
