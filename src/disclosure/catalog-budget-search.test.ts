import { describe, expect, it } from 'vitest';
import { codePointLength } from '../format/code-point-length.js';
import { compareNames } from '../repository/compare-names.js';
import type { SkillSummary } from '../repository/types.js';
import { type CatalogBudget, renderCatalog, renderCatalogWithReport } from './catalog.js';
import { renderCatalogGuidance } from './catalog-guidance.js';
import {
  type CatalogEntry,
  type CatalogFormat,
  catalogEntry,
  minimumDescriptionLength,
  renderParts,
  shortenDescription,
} from './catalog-parts.js';
import { countTokens } from './token-counter.js';

/**
 * The budget search as stated, with nothing clever: every candidate catalog is rendered whole and
 * counted whole with countTokens. The real search adds up per-skill costs instead; both must pick
 * the same catalog.
 */
function referenceCatalog(
  skills: SkillSummary[],
  format: CatalogFormat,
  budget: CatalogBudget,
  guidanceText: string,
): string {
  const full = [...skills].sort((a, b) => compareNames(a.name, b.name)).map((skill) => catalogEntry(skill, format));
  const text = (entries: CatalogEntry[]) => renderParts(entries, format, guidanceText).join('');
  const fits = (entries: CatalogEntry[]) => {
    const candidate = text(entries);
    return (
      (budget.characters === undefined || codePointLength(candidate) <= budget.characters) &&
      (budget.tokens === undefined || countTokens(candidate) <= budget.tokens)
    );
  };
  if (fits(full)) return text(full);
  const shortened = (limit: number) =>
    full.map((entry) => ({ ...entry, description: shortenDescription(entry.description!, limit) }));
  let low = minimumDescriptionLength;
  let high = Math.max(...full.map((entry) => [...entry.description!].length)) - 1;
  let best: CatalogEntry[] | undefined;
  while (low <= high) {
    const middle = Math.floor((low + high) / 2);
    const entries = shortened(middle);
    if (fits(entries)) {
      best = entries;
      low = middle + 1;
    } else high = middle - 1;
  }
  if (best) return text(best);
  const shortest = shortened(minimumDescriptionLength);
  const withDescriptions = (count: number) =>
    shortest.map((entry, index) => (index < count ? entry : { name: entry.name }));
  low = 0;
  high = shortest.length - 1;
  let bestCount = -1;
  while (low <= high) {
    const middle = Math.floor((low + high) / 2);
    if (fits(withDescriptions(middle))) {
      bestCount = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return text(withDescriptions(Math.max(bestCount, 0)));
}

// Names a custom repository could hand over: punctuation at either end, inner spaces, digits,
// non-Latin letters, emoji; the `Other skills` line joins them with ", ".
const awkwardNames = [
  'a',
  'x-',
  '-lead',
  'v2',
  '3d-print',
  'two words',
  'façade',
  '日本語',
  'emoji-🙂',
  "it's",
  'end.',
  'q?',
  'name/with/slash',
  'UPPER',
  'MiXeD-Case',
  '...',
];
const words = [
  'reads',
  'the',
  'inputs,',
  'checks',
  'them;',
  'writes',
  'a',
  'report.',
  'Use',
  'when',
  'asked',
  'about',
  '"quoted"',
  '<xml>',
  '&',
  '🙂',
  'naïve',
  'ÜBER',
  '12345',
];

function awkwardSkills(count: number, seed: number): SkillSummary[] {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: count }, (_, index) => {
    const name = `${awkwardNames[index % awkwardNames.length]}${index >= awkwardNames.length ? `-${index}` : ''}`;
    const length = 1 + Math.floor(next() * 60);
    const description = Array.from({ length }, () => words[Math.floor(next() * words.length)]).join(
      next() < 0.1 ? '  ' : ' ',
    );
    return { name, description, path: `/skills/${name}` };
  });
}

describe('the budget search adds up per-skill costs and picks what rendering every candidate whole picks', () => {
  const guidances = [
    ['tools', renderCatalogGuidance(['skill_load'])],
    ['no guidance', ''],
  ] as const;
  for (const format of ['text', 'xml'] as const) {
    for (const [label, guidanceText] of guidances) {
      it(`${format}, ${label}, token, character and combined budgets from generous to below the names`, () => {
        for (const seed of [1, 2, 3]) {
          const skills = awkwardSkills(40, seed);
          for (const budget of [
            { tokens: 5000 },
            { tokens: 900 },
            { tokens: 400 },
            { tokens: 120 },
            { tokens: 5 },
            { characters: 3000 },
            { characters: 900 },
            { tokens: 500, characters: 2500 },
          ]) {
            const options = {
              skills,
              format,
              budget,
              ...(guidanceText === '' ? { guidance: false as const } : { tools: ['skill_load'] }),
            };
            expect(renderCatalog(options), `${format} ${label} seed ${seed} ${JSON.stringify(budget)}`).toBe(
              referenceCatalog(skills, format, budget, guidanceText),
            );
          }
        }
      });
    }
  }
});

describe('a budget over a very large library', () => {
  // 150,000 skills made `Math.max(...lengths)` throw RangeError (too many arguments).
  it('keeps every one of 150,000 skills, described as far as the budget allows, without a RangeError', () => {
    const skills = Array.from({ length: 150_000 }, (_, index) => ({
      name: `skill-${String(index).padStart(6, '0')}`,
      description: `Handles task number ${index}: reads the inputs, checks them and writes a short report. Use when asked about task ${index}.`,
    }));
    const report = renderCatalogWithReport({ skills, guidance: false, budget: { tokens: 8_000 } });
    expect(report.total).toBe(150_000);
    expect(report.described).toBe(0);
    expect(report.overBudget).toBe(true);
    expect(report.text).toContain('skill-000000, skill-000001');
    expect(report.text.endsWith('skill-149999')).toBe(true);

    const roomy = renderCatalogWithReport({
      skills: skills.slice(0, 4_000),
      guidance: false,
      budget: { tokens: 40_000 },
    });
    expect(roomy.overBudget).toBe(false);
    expect(roomy.tokens).toBeLessThanOrEqual(40_000);
    expect(roomy.described).toBeGreaterThan(0);
    expect(roomy.described).toBeLessThan(4_000);
    expect(countTokens(roomy.text)).toBe(roomy.tokens);
  });
});
