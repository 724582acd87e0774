import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusRoot, hasCorpus } from '../../test/support/corpus.js';
import { createFsSkillRepository } from '../repository/fs-skill-repository.js';
import type { SkillSummary } from '../repository/types.js';
import { type CatalogBudget, type CatalogOptions, renderCatalog } from './catalog.js';

// Outputs of the catalog as it was before the budget search counted each line once (it re-counted
// the whole text at every step): the faster search must give the same bytes for the same input.
interface CorpusCase {
  collection: string;
  format: 'text' | 'xml';
  budget: CatalogBudget;
  guidance: boolean;
  skills: number;
  sha256: string;
  length: number;
}
interface Fixtures {
  corpusCases: CorpusCase[];
  smallCases: { options: CatalogOptions; expected: string }[];
}

const fixtures = JSON.parse(
  readFileSync(join(import.meta.dirname, 'catalog-budget-fixtures.json'), 'utf8'),
) as Fixtures;
const corpus = corpusRoot;
const roots: Record<string, string> = {
  anthropics__skills: 'anthropics__skills/skills',
  'K-Dense-AI__claude-scientific-skills': 'K-Dense-AI__claude-scientific-skills/scientific-skills',
  'github__awesome-copilot': 'github__awesome-copilot/skills',
};

// The XML catalog holds each skill's absolute location, and the fixtures were recorded with the
// corpus at /work/shared/corpus; CI clones elsewhere, so locations are put back under that path.
const recordedCorpus = '/work/shared/corpus';
function asRecorded(location: string | undefined): string | undefined {
  return location?.startsWith(corpus) ? recordedCorpus + location.slice(corpus.length) : location;
}

async function collectionSkills(collection: string): Promise<SkillSummary[]> {
  const skills = await (await createFsSkillRepository({ roots: [join(corpus, roots[collection]!)] })).list();
  return skills.map((skill) => ({ ...skill, path: asRecorded(skill.path), root: asRecorded(skill.root) }));
}

describe.runIf(hasCorpus)('renderCatalog budget output is unchanged', () => {
  it.each(fixtures.smallCases.map((testCase, index) => [index, testCase] as const))('small case %i', (_, testCase) => {
    expect(renderCatalog(testCase.options)).toBe(testCase.expected);
  });

  it.each(Object.keys(roots))('corpus collection %s, both formats, every budget', async (collection) => {
    const skills = await collectionSkills(collection);
    const cases = fixtures.corpusCases.filter((testCase) => testCase.collection === collection);
    expect(cases.length).toBeGreaterThan(0);
    for (const testCase of cases) {
      expect(skills).toHaveLength(testCase.skills);
      const text = renderCatalog({
        skills,
        format: testCase.format,
        budget: testCase.budget,
        ...(testCase.guidance ? { tools: ['skill_load', 'skill_read'] } : { guidance: false as const }),
      });
      const label = `${testCase.format} ${JSON.stringify(testCase.budget)}`;
      expect({ label, length: text.length, sha256: createHash('sha256').update(text).digest('hex') }).toEqual({
        label,
        length: testCase.length,
        sha256: testCase.sha256,
      });
    }
  });
});
