import { OptionProblems } from '../config/option-problems.js';
import { codePointLength } from '../format/code-point-length.js';
import { compareNames } from '../repository/compare-names.js';
import type { SkillSummary } from '../repository/types.js';
import { type CatalogBudget, chooseBudgetedEntries } from './catalog-budget-search.js';
import { renderCatalogGuidance } from './catalog-guidance.js';
import {
  type CatalogEntry,
  type CatalogFormat,
  type CatalogLocation,
  catalogEntry,
  renderEntry,
  renderParts,
} from './catalog-parts.js';
import { type ModelInvocationOptions, modelInvocableSkills } from './model-invocable-skills.js';
import { countTokens } from './token-counter.js';

export type { CatalogBudget } from './catalog-budget-search.js';
export {
  type CatalogFormat,
  type CatalogLocation,
  maxCatalogDescriptionLength,
  minimumDescriptionLength,
  shortenDescription,
} from './catalog-parts.js';

/** What `renderCatalog` lists (the skills, the tools the model has) and how (format, guidance, budget). */
export interface CatalogOptions extends ModelInvocationOptions {
  /**
   * The visible skills (after the visibility filter). Their order does not matter: the catalog sorts
   * by name. Skills with `modelInvocable: false` are left out unless `includeNonModelInvocable` is true.
   */
  skills: readonly SkillSummary[];
  /** `text` (default): `Available skills:` and `- name: description` lines. `xml`: the client guide's `<available_skills>`. */
  format?: CatalogFormat;
  /** In XML, what `<location>` holds: `skill-uri` (default, `skill://<name>/SKILL.md`) or the host `path`. */
  location?: CatalogLocation;
  /** Names of the tools registered for the model; the guidance mentions only these. */
  tools?: readonly string[];
  /** Replaces the guidance after the list; `false` or `''` leaves it out. */
  guidance?: string | false;
  budget?: CatalogBudget;
  /**
   * When `tools` holds `skill_search`: `over-budget` (default) names it only when the budget
   * shortened the catalog (the guidance then says so and points to it), `always` names it in any
   * case. The report's `searchOffered` says which happened, so the caller can offer the tool only
   * then (docs/skill-search.md).
   */
  skillSearch?: 'over-budget' | 'always';
}

/** One skill's catalog entry as it appears in a full catalog (what the skill alone adds to it). */
export function renderCatalogEntry(
  skill: SkillSummary,
  format: CatalogFormat = 'text',
  location: CatalogLocation = 'skill-uri',
): string {
  return renderEntry(catalogEntry(skill, format, location), format);
}

// Plain checks, not a zod schema: `skillbox/disclosure` loads no third-party module (docs/architecture.md).
function checkCatalogOptions(options: CatalogOptions): void {
  const problems = new OptionProblems('renderCatalog');
  const format = options.format ?? 'text';
  if (format !== 'text' && format !== 'xml')
    problems.add('format', `must be "text" or "xml"; got ${JSON.stringify(format)}`);
  if (options.location !== undefined && options.location !== 'skill-uri' && options.location !== 'path')
    problems.add('location', `must be "skill-uri" or "path"; got ${JSON.stringify(options.location)}`);
  for (const field of ['tokens', 'characters'] as const) {
    const value = options.budget?.[field];
    if (value !== undefined && (!Number.isInteger(value) || value <= 0))
      problems.add(`budget.${field}`, `must be a positive integer; got ${JSON.stringify(value)}`);
  }
  if (options.skillSearch !== undefined && options.skillSearch !== 'over-budget' && options.skillSearch !== 'always')
    problems.add('skillSearch', `must be "over-budget" or "always"; got ${JSON.stringify(options.skillSearch)}`);
  problems.throwIfAny();
}

/**
 * The text that introduces the skills to the model: byte-identical for the same skills and options,
 * so it can sit in a cached request prefix. Empty when there are no skills.
 *
 * Over budget, descriptions are first shortened (the longest first, never below
 * `minimumDescriptionLength`), then the skills at the end of the list are listed by name only, and
 * the header says how many are described. No skill is ever left out: if even the names do not fit,
 * the catalog lists them all and exceeds the budget.
 */
export function renderCatalog(options: CatalogOptions): string {
  return renderCatalogParts(options).text;
}

/** What `renderCatalogWithReport` says about the catalog it rendered. */
export interface CatalogReport {
  /** Exactly what `renderCatalog` returns for the same options. */
  text: string;
  /** o200k_base tokens of `text`. */
  tokens: number;
  /** Code points of `text`. */
  characters: number;
  /** Skills shown with their description; the rest are listed by name only. */
  described: number;
  /** Skills in the catalog (all of them, described or not). */
  total: number;
  /** True when the text exceeds the budget: even the names alone did not fit. */
  overBudget: boolean;
  /** True when the full catalog did not fit the budget, so descriptions were shortened or left out. */
  shortened: boolean;
  /** True when the text points the model to `skill_search` (see `CatalogOptions.skillSearch`). */
  searchOffered: boolean;
}

/**
 * `renderCatalog` plus what a caller must know to act on it: how many skills kept a description and
 * whether the text is over budget (the catalog never drops a skill, so a budget smaller than the
 * names is exceeded rather than met by hiding skills).
 */
export function renderCatalogWithReport(options: CatalogOptions): CatalogReport {
  const { text, described, total, shortened, searchOffered } = renderCatalogParts(options);
  const tokens = countTokens(text);
  const characters = codePointLength(text);
  const budget = options.budget;
  const overBudget =
    budget !== undefined &&
    ((budget.tokens !== undefined && tokens > budget.tokens) ||
      (budget.characters !== undefined && characters > budget.characters));
  return { text, tokens, characters, described, total, overBudget, shortened, searchOffered };
}

/** The catalog text with what the renderer decided (internal: integrations read `searchOffered`). */
export interface RenderedCatalog {
  text: string;
  described: number;
  total: number;
  shortened: boolean;
  searchOffered: boolean;
}

function rendered(
  entries: readonly CatalogEntry[],
  catalogParts: readonly string[],
  shortened: boolean,
  searchOffered: boolean,
): RenderedCatalog {
  let described = 0;
  for (const entry of entries) if (entry.description !== undefined) described += 1;
  return { text: catalogParts.join(''), described, total: entries.length, shortened, searchOffered };
}

function isShortened(entries: readonly CatalogEntry[], full: readonly CatalogEntry[]): boolean {
  return entries.some((entry, index) => entry.description !== full[index]!.description);
}

/** `renderCatalog` with what it decided, without counting tokens (`renderCatalogWithReport` counts them). */
export function renderCatalogParts(options: CatalogOptions): RenderedCatalog {
  checkCatalogOptions(options);
  const format = options.format ?? 'text';
  const skills = modelInvocableSkills(options.skills, options);
  if (skills.length === 0) return { text: '', described: 0, total: 0, shortened: false, searchOffered: false };
  const sorted = [...skills].sort((a, b) => compareNames(a.name, b.name));
  const full = sorted.map((skill) => catalogEntry(skill, format, options.location));
  const tools = options.tools ?? [];
  const hasSearch = tools.includes('skill_search');
  const always = options.skillSearch === 'always';
  const guidanceFor = (toolNames: readonly string[], shortened: boolean) =>
    options.guidance === false ? '' : (options.guidance ?? renderCatalogGuidance(toolNames, { shortened }));
  const budget = options.budget;
  const choose = (guidanceText: string) =>
    budget === undefined || (budget.tokens === undefined && budget.characters === undefined)
      ? full
      : chooseBudgetedEntries(full, format, guidanceText, budget);
  // Whether the catalog is shortened is decided without the search line, so that line (which only
  // a shortened catalog needs) cannot itself be what pushes the catalog over its budget.
  const withoutSearch = hasSearch ? tools.filter((name) => name !== 'skill_search') : tools;
  let guidanceText = guidanceFor(always ? tools : withoutSearch, false);
  let entries = choose(guidanceText);
  let shortened = isShortened(entries, full);
  if (hasSearch && shortened) {
    guidanceText = guidanceFor(tools, true);
    entries = choose(guidanceText);
  }
  const searchOffered = hasSearch && (always || shortened);
  shortened = isShortened(entries, full);
  return rendered(entries, renderParts(entries, format, guidanceText), shortened, searchOffered);
}
