import type { SkillSummary } from '../repository/types.js';
import { renderCatalogGuidance } from './catalog-guidance.js';
import { DisclosureConfigError } from './errors.js';
import { countTokens } from './token-counter.js';

export type CatalogFormat = 'text' | 'xml';

export interface CatalogBudget {
  /** Most o200k_base tokens the catalog (guidance included) may take. */
  tokens?: number;
  /** Most characters (Unicode code points) the catalog (guidance included) may take. */
  characters?: number;
}

export interface CatalogOptions {
  /** The visible skills (after the visibility filter). Their order does not matter: the catalog sorts by name. */
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

function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}

/** Multi-line descriptions become one line so each skill is exactly one catalog line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;');
}

/** Cuts to at most `limit` code points, at a word boundary when one is near, ending in `…`. */
export function shortenDescription(text: string, limit: number): string {
  const points = [...text];
  if (points.length <= limit) return text;
  let cut = points.slice(0, Math.max(limit - 1, 0)).join('');
  const space = cut.lastIndexOf(' ');
  if (space >= cut.length * 0.7) cut = cut.slice(0, space);
  return `${cut.replace(/[\s,;:.\-–—]+$/u, '')}…`;
}

/** One skill's catalog entry as it appears in a full catalog (what the skill alone adds to it). */
export function renderCatalogEntry(skill: SkillSummary, format: CatalogFormat = 'text'): string {
  const location = format === 'xml' ? locationOf(skill) : undefined;
  return renderEntry({ name: skill.name, description: oneLine(skill.description), ...(location === undefined ? {} : { location }) }, format);
}

function renderEntry(entry: Entry, format: CatalogFormat): string {
  if (format === 'text') return entry.description === undefined ? '' : `- ${entry.name}: ${entry.description}\n`;
  const parts = [`<skill>\n<name>\n${escapeXml(entry.name)}\n</name>\n`];
  if (entry.description !== undefined) parts.push(`<description>\n${escapeXml(entry.description)}\n</description>\n`);
  if (entry.location !== undefined) parts.push(`<location>\n${escapeXml(entry.location)}\n</location>\n`);
  parts.push('</skill>\n');
  return parts.join('');
}

function renderList(entries: readonly Entry[], format: CatalogFormat): string {
  const described = entries.filter((entry) => entry.description !== undefined).length;
  const note = described < entries.length ? ` (showing ${described} of ${entries.length} skills; the others are listed by name)` : '';
  if (format === 'xml') {
    const header = note === '' ? '' : `${note.trim()}\n`;
    return `${header}<available_skills>\n${entries.map((entry) => renderEntry(entry, format)).join('')}</available_skills>`;
  }
  const lines = entries.map((entry) => renderEntry(entry, format)).join('');
  const others = entries.filter((entry) => entry.description === undefined).map((entry) => entry.name);
  const tail = others.length === 0 ? '' : `Other skills: ${others.join(', ')}\n`;
  return `Available skills${note}:\n${lines}${tail}`.trimEnd();
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
  const format = options.format ?? 'text';
  if (format !== 'text' && format !== 'xml') throw new DisclosureConfigError('format', `must be "text" or "xml"; got ${JSON.stringify(format)}`);
  checkBudget(options.budget);
  if (options.skills.length === 0) return '';
  const sorted = [...options.skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const full: Entry[] = sorted.map((skill) => {
    const location = format === 'xml' ? locationOf(skill) : undefined;
    return { name: skill.name, description: oneLine(skill.description), ...(location === undefined ? {} : { location }) };
  });
  const guidanceText = options.guidance === false ? '' : (options.guidance ?? renderCatalogGuidance(options.tools ?? []));
  const render = (entries: readonly Entry[]) => (guidanceText === '' ? renderList(entries, format) : `${renderList(entries, format)}\n\n${guidanceText}`);
  const budget = options.budget;
  if (budget === undefined || (budget.tokens === undefined && budget.characters === undefined)) return render(full);

  const fits = (text: string) =>
    (budget.characters === undefined || codePointLength(text) <= budget.characters) && (budget.tokens === undefined || countTokens(text) <= budget.tokens);

  const fullText = render(full);
  if (fits(fullText)) return fullText;

  const shortened = (limit: number) => full.map((entry) => ({ ...entry, description: shortenDescription(entry.description!, limit) }));
  const longest = Math.max(...full.map((entry) => codePointLength(entry.description!)));
  // Largest description cap that fits: fitting is monotone in the cap, so a binary search finds it.
  let low = minimumDescriptionLength;
  let high = longest - 1;
  let best: string | undefined;
  while (low <= high) {
    const middle = Math.floor((low + high) / 2);
    const text = render(shortened(middle));
    if (fits(text)) {
      best = text;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  if (best !== undefined) return best;

  const shortest = shortened(minimumDescriptionLength);
  const withDescriptions = (count: number) =>
    shortest.map((entry, index) => (index < count ? entry : { name: entry.name }));
  low = 0;
  high = shortest.length - 1;
  let bestCount = -1;
  while (low <= high) {
    const middle = Math.floor((low + high) / 2);
    if (fits(render(withDescriptions(middle)))) {
      bestCount = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return render(withDescriptions(Math.max(bestCount, 0)));
}
