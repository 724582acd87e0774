import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusRoot, hasCorpus } from '../../test/support/corpus.js';
import { createFsSkillRepository } from '../repository/fs-skill-repository.js';
import type { SkillSummary } from '../repository/types.js';
import { type CatalogBudget, type CatalogOptions, renderCatalog } from './catalog.js';

// What the budget search decided for each corpus collection at each budget: which skills are listed
// with a description, which are shortened and to how many code points, which go by name only. The
// fixture files are readable (a failure shows a line diff) and hold no corpus prose: a description's
// text is replaced by its length. The renderer's exact bytes are pinned by the small hand-made cases.
interface CorpusCase {
  collection: string;
  format: 'text' | 'xml';
  budget: CatalogBudget;
  guidance: boolean;
}
interface Fixtures {
  corpusCases: CorpusCase[];
  smallCases: { options: CatalogOptions; expected: string }[];
}

const fixtures = JSON.parse(
  readFileSync(join(import.meta.dirname, 'catalog-budget-fixtures.json'), 'utf8'),
) as Fixtures;
const roots: Record<string, string> = {
  anthropics__skills: 'anthropics__skills/skills',
  'K-Dense-AI__claude-scientific-skills': 'K-Dense-AI__claude-scientific-skills/scientific-skills',
  'github__awesome-copilot': 'github__awesome-copilot/skills',
};

function describeLength(text: string): string {
  const length = [...text].length;
  return text.endsWith('…') ? `‹${length} code points, shortened›` : `‹${length} code points›`;
}

/** The catalog with each description's text replaced by its length. */
function catalogShape(text: string, format: 'text' | 'xml'): string {
  const lines = text.split('\n');
  if (format === 'text') {
    return lines
      .map((line) =>
        line.replace(/^(- [^:\s]+: )(.*)$/u, (_, head: string, rest: string) => head + describeLength(rest)),
      )
      .join('\n');
  }
  return lines
    .map((line, index) => {
      if (lines[index - 1] === '<description>') return describeLength(line);
      return line;
    })
    .join('\n');
}

// The XML catalog holds each skill's absolute location, which counts against a character budget:
// locations are put under one fixed root so the result does not depend on where the corpus is.
const fixedRoot = '/corpus';
function underFixedRoot(location: string | undefined): string | undefined {
  return location?.startsWith(corpusRoot) ? fixedRoot + location.slice(corpusRoot.length) : location;
}

async function collectionSkills(collection: string): Promise<SkillSummary[]> {
  const skills = await (await createFsSkillRepository({ roots: [join(corpusRoot, roots[collection]!)] })).list();
  return skills.map((skill) => ({ ...skill, path: underFixedRoot(skill.path), root: underFixedRoot(skill.root) }));
}

describe('renderCatalog budget output is unchanged', () => {
  it.each(fixtures.smallCases.map((testCase, index) => [index, testCase] as const))('small case %i', (_, testCase) => {
    // The fixtures were recorded with host paths in <location>; they pin the budget search, not the location style.
    expect(renderCatalog({ location: 'path', ...testCase.options })).toBe(testCase.expected);
  });

  it.runIf(hasCorpus).each(Object.keys(roots))(
    'corpus collection %s, both formats, every budget',
    async (collection) => {
      const skills = await collectionSkills(collection);
      const cases = fixtures.corpusCases.filter((testCase) => testCase.collection === collection);
      expect(cases.length).toBeGreaterThan(0);
      const sections = cases.map((testCase) => {
        const text = renderCatalog({
          location: 'path',
          skills,
          format: testCase.format,
          budget: testCase.budget,
          ...(testCase.guidance ? { tools: ['skill_load', 'skill_read'] } : { guidance: false as const }),
        });
        const label = `${testCase.format} ${JSON.stringify(testCase.budget)}${testCase.guidance ? ' with guidance' : ''}`;
        return `=== ${label}: ${skills.length} skills, ${text.length} characters ===\n${catalogShape(text, testCase.format)}`;
      });
      await expect(sections.join('\n')).toMatchFileSnapshot(join('fixtures', 'catalog-budget', `${collection}.txt`));
    },
  );
});
