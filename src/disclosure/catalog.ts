import { codePointLength } from '../format/code-point-length.js';
import { compareNames } from '../repository/compare-names.js';
import type { SkillSummary } from '../repository/types.js';
import { renderCatalogGuidance } from './catalog-guidance.js';
import { DisclosureConfigError } from './errors.js';
import { modelVisibleSkills, type ModelVisibilityOptions } from './model-visibility.js';
import { countTokens, createTokenCounter } from './token-counter.js';

/** How `renderCatalog` lays out skills: plain `text` lines or `xml` (`<available_skills>`). */
export type CatalogFormat = 'text' | 'xml';

/** A size limit for the rendered catalog, in tokens (o200k_base) and/or characters. */
export interface CatalogBudget {
  /** Most o200k_base tokens the catalog (guidance included) may take. */
  tokens?: number;
  /** Most characters (Unicode code points) the catalog (guidance included) may take. */
  characters?: number;
}

/** What `renderCatalog` lists (the skills, the tools the model has) and how (format, guidance, budget). */
export interface CatalogOptions extends ModelVisibilityOptions {
  /**
   * The visible skills (after the visibility filter). Their order does not matter: the catalog sorts
   * by name. Skills with `modelInvocable: false` are left out unless `includeModelDisabled` is true.
   */
  skills: readonly SkillSummary[];
  /** `text` (default): `Available skills:` and `- name: description` lines. `xml`: the client guide's `<available_skills>`. */
  format?: CatalogFormat;
  /** Names of the tools registered for the model; the guidance mentions only these. */
  tools?: readonly string[];
  /** Replaces the guidance after the list; `false` or `''` leaves it out. */
  guidance?: string | false;
  budget?: CatalogBudget;
}

/** Descriptions are never shortened below this many code points; past that, skills are listed by name. */
export const minimumDescriptionLength = 40;

interface Entry {
  name: string;
  /** Undefined: listed by name only. */
  description?: string;
  location?: string;
}

/** Multi-line descriptions become one line so each skill is exactly one catalog line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * A name as the catalog shows it: runs of whitespace and control characters become one space. The
 * repository refuses such names at load; this keeps a name from another source (a custom
 * repository, a skill defined in code) from breaking the one-line-per-skill shape or smuggling a
 * line of its own into the prompt.
 */
function catalogName(name: string): string {
  return name.replace(/[\s\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').trim();
}

/**
 * The longest description the catalog shows, in code points: the Agent Skills spec's limit. A
 * longer one (a loader may accept it leniently) is cut here, before anything counts it, so one
 * oversized description can neither crowd out the others nor make a budget search slow.
 */
export const maxCatalogDescriptionLength = 1024;

/** A description as the catalog shows it: one line, at most `maxCatalogDescriptionLength` code points. */
function catalogDescription(text: string): string {
  const line = oneLine(text);
  return line.length <= maxCatalogDescriptionLength ? line : shortenDescription(line, maxCatalogDescriptionLength);
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;');
}

/** Cuts to at most `limit` code points, at a word boundary when one is near, ending in `…`. */
export function shortenDescription(text: string, limit: number): string {
  return shortenCodePoints(text, [...text], limit);
}

/** `shortenDescription` with the code points split once: the budget search cuts each description many times. */
function shortenCodePoints(text: string, points: readonly string[], limit: number): string {
  if (points.length <= limit) return text;
  let cut = points.slice(0, Math.max(limit - 1, 0)).join('');
  const space = cut.lastIndexOf(' ');
  if (space >= cut.length * 0.7) cut = cut.slice(0, space);
  return `${cut.replace(/[\s,;:.\-–—]+$/u, '')}…`;
}

/** One skill's catalog entry as it appears in a full catalog (what the skill alone adds to it). */
export function renderCatalogEntry(skill: SkillSummary, format: CatalogFormat = 'text'): string {
  return renderEntry(catalogEntry(skill, format), format);
}

/** A skill's full entry: its name and description as the catalog shows them, and in XML its location. */
function catalogEntry(skill: SkillSummary, format: CatalogFormat): Entry {
  const location = format === 'xml' ? locationOf(skill) : undefined;
  return { name: catalogName(skill.name), description: catalogDescription(skill.description), ...(location === undefined ? {} : { location }) };
}

function renderEntry(entry: Entry, format: CatalogFormat): string {
  if (format === 'text') return entry.description === undefined ? '' : `- ${entry.name}: ${entry.description}\n`;
  const parts = [`<skill>\n<name>\n${escapeXml(entry.name)}\n</name>\n`];
  if (entry.description !== undefined) parts.push(`<description>\n${escapeXml(entry.description)}\n</description>\n`);
  if (entry.location !== undefined) parts.push(`<location>\n${escapeXml(entry.location)}\n</location>\n`);
  parts.push('</skill>\n');
  return parts.join('');
}

/**
 * The catalog as consecutive parts (a header, one part per skill, the tail, the guidance): joined,
 * they are the catalog. A budget search counts parts, so a part it has seen before costs nothing.
 */
function renderParts(entries: readonly Entry[], format: CatalogFormat, guidanceText: string): string[] {
  const described = entries.filter((entry) => entry.description !== undefined).length;
  const note = described < entries.length ? ` (showing ${described} of ${entries.length} skills; the others are listed by name)` : '';
  const parts: string[] = [];
  if (format === 'xml') {
    if (note !== '') parts.push(`${note.trim()}\n`);
    parts.push('<available_skills>\n');
    for (const entry of entries) parts.push(renderEntry(entry, format));
    parts.push('</available_skills>');
  } else {
    parts.push(`Available skills${note}:\n`);
    for (const entry of entries) if (entry.description !== undefined) parts.push(renderEntry(entry, format));
    const others = entries.filter((entry) => entry.description === undefined).map((entry) => entry.name);
    if (others.length > 0) parts.push(`Other skills: ${others.join(', ')}\n`);
    // The list ends without trailing whitespace; every part starts with a visible character, so only the last part can hold any.
    parts.push(parts.pop()!.trimEnd());
  }
  if (guidanceText !== '') parts.push(`\n\n${guidanceText}`);
  return parts;
}

function locationOf(skill: SkillSummary): string | undefined {
  return skill.path === undefined ? undefined : `${skill.path.replace(/[\\/]+$/, '')}/SKILL.md`;
}

function checkBudget(budget: CatalogBudget | undefined): void {
  if (budget === undefined) return;
  for (const field of ['tokens', 'characters'] as const) {
    const value = budget[field];
    if (value !== undefined && (!Number.isInteger(value) || value <= 0)) {
      throw new DisclosureConfigError(`budget.${field}`, `must be a positive integer; got ${JSON.stringify(value)}`);
    }
  }
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
}

/**
 * `renderCatalog` plus what a caller must know to act on it: how many skills kept a description and
 * whether the text is over budget (the catalog never drops a skill, so a budget smaller than the
 * names is exceeded rather than met by hiding skills).
 */
export function renderCatalogWithReport(options: CatalogOptions): CatalogReport {
  const { text, described, total } = renderCatalogParts(options);
  const tokens = countTokens(text);
  const characters = codePointLength(text);
  const budget = options.budget;
  const overBudget =
    budget !== undefined && ((budget.tokens !== undefined && tokens > budget.tokens) || (budget.characters !== undefined && characters > budget.characters));
  return { text, tokens, characters, described, total, overBudget };
}

function rendered(entries: readonly Entry[], catalogParts: readonly string[]): { text: string; described: number; total: number } {
  return { text: catalogParts.join(''), described: entries.filter((entry) => entry.description !== undefined).length, total: entries.length };
}

function renderCatalogParts(options: CatalogOptions): { text: string; described: number; total: number } {
  const format = options.format ?? 'text';
  if (format !== 'text' && format !== 'xml') throw new DisclosureConfigError('format', `must be "text" or "xml"; got ${JSON.stringify(format)}`);
  checkBudget(options.budget);
  const skills = modelVisibleSkills(options.skills, options);
  if (skills.length === 0) return { text: '', described: 0, total: 0 };
  const sorted = [...skills].sort((a, b) => compareNames(a.name, b.name));
  const full = sorted.map((skill) => catalogEntry(skill, format));
  const guidanceText = options.guidance === false ? '' : (options.guidance ?? renderCatalogGuidance(options.tools ?? []));
  const parts = (entries: readonly Entry[]) => renderParts(entries, format, guidanceText);
  const budget = options.budget;
  if (budget === undefined || (budget.tokens === undefined && budget.characters === undefined)) return rendered(full, parts(full));

  // The search renders many variants that share most parts; each distinct part is measured once.
  const counter = createTokenCounter();
  const characters = new Map<string, number>();
  const characterCount = (catalogParts: readonly string[]) => {
    let total = 0;
    for (const part of catalogParts) {
      let count = characters.get(part);
      if (count === undefined) characters.set(part, (count = codePointLength(part)));
      total += count;
    }
    return total;
  };
  const fits = (catalogParts: readonly string[]) =>
    (budget.characters === undefined || characterCount(catalogParts) <= budget.characters) &&
    (budget.tokens === undefined || counter.count(catalogParts, budget.tokens) <= budget.tokens);

  const fullParts = parts(full);
  if (fits(fullParts)) return rendered(full, fullParts);

  const points = full.map((entry) => [...entry.description!]);
  const shortened = (limit: number) => full.map((entry, index) => ({ ...entry, description: shortenCodePoints(entry.description!, points[index]!, limit) }));
  const longest = Math.max(...points.map((entryPoints) => entryPoints.length));
  // Largest description cap that fits: fitting is monotone in the cap, so a binary search finds it.
  let low = minimumDescriptionLength;
  let high = longest - 1;
  let best: { entries: Entry[]; parts: string[] } | undefined;
  while (low <= high) {
    const middle = Math.floor((low + high) / 2);
    const entries = shortened(middle);
    const candidate = parts(entries);
    if (fits(candidate)) {
      best = { entries, parts: candidate };
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  if (best !== undefined) return rendered(best.entries, best.parts);

  const shortest = shortened(minimumDescriptionLength);
  const withDescriptions = (count: number) =>
    shortest.map((entry, index) => (index < count ? entry : { name: entry.name }));
  low = 0;
  high = shortest.length - 1;
  let bestCount = -1;
  while (low <= high) {
    const middle = Math.floor((low + high) / 2);
    if (fits(parts(withDescriptions(middle)))) {
      bestCount = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  const names = withDescriptions(Math.max(bestCount, 0));
  return rendered(names, parts(names));
}
