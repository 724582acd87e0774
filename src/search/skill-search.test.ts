import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { filterSkills } from '../repository/filter-skills.js';
import { FsSkillRepository } from '../repository/fs-skill-repository.js';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { createSkillTree, type SkillTree, skillMarkdown } from '../repository/testing/skill-tree.js';
import type { SkillRepository } from '../repository/types.js';
import { createSkillSearch } from './skill-search.js';

let tree: SkillTree | undefined;
afterEach(async () => {
  await tree?.remove();
  tree = undefined;
});

/** Counts the repository's list() calls, to see when the index re-lists. */
function counting(repository: SkillRepository): { repository: SkillRepository; lists: () => number } {
  let lists = 0;
  const wrapped: SkillRepository = {
    list: async (context) => {
      lists += 1;
      return repository.list(context);
    },
    get: (name, context) => repository.get(name, context),
    listFiles: (name, context) => repository.listFiles(name, context),
    readFile: (name, path, context) => repository.readFile(name, path, context),
    report: () => repository.report(),
    refresh: () => repository.refresh(),
    generation: () => repository.generation?.(),
  };
  return { repository: wrapped, lists: () => lists };
}

describe('createSkillSearch', () => {
  const definitions = [
    { name: 'pdf', description: 'Fill in PDF forms and extract text from PDF files.', body: 'Use pypdf.' },
    { name: 'docx', description: 'Create and edit Word documents.', body: 'Tracked changes with python-docx.' },
    { name: 'internal-audit', description: 'Audit PDF invoices.', body: 'x', disableModelInvocation: true },
  ];

  it('returns names, descriptions and scores best first, leaving out skills kept from the model', async () => {
    const search = createSkillSearch(createMemorySkillRepository(definitions));
    const hits = await search.search('fill a pdf form');
    expect(hits.map((hit) => hit.name)).toEqual(['pdf']);
    expect(hits[0]).toEqual({ name: 'pdf', description: definitions[0]!.description, score: expect.any(Number) });
    expect(hits[0]!.score).toBeGreaterThan(0);
    const withHidden = createSkillSearch(createMemorySkillRepository(definitions), { includeNonModelInvocable: true });
    expect((await withHidden.search('invoices')).map((hit) => hit.name)).toEqual(['internal-audit']);
  });

  it('searches bodies only when asked', async () => {
    const repository = createMemorySkillRepository(definitions);
    expect(await createSkillSearch(repository).search('tracked changes')).toEqual([]);
    const hits = await createSkillSearch(repository, { bodies: true }).search('tracked changes');
    expect(hits.map((hit) => hit.name)).toEqual(['docx']);
  });

  it('lists the repository again only when its generation moved, and follows added, edited and removed skills', async () => {
    tree = await createSkillTree({
      'skills/pdf/SKILL.md': skillMarkdown('pdf', 'Fill in PDF forms.'),
      'skills/docx/SKILL.md': skillMarkdown('docx', 'Edit Word documents.'),
    });
    const fs = await FsSkillRepository.open({ roots: [join(tree.dir, 'skills')] });
    const { repository, lists } = counting(fs);
    const search = createSkillSearch(repository);
    expect((await search.search('word')).map((hit) => hit.name)).toEqual(['docx']);
    await search.search('pdf');
    await search.search('forms');
    expect(lists()).toBe(1);

    await mkdir(join(tree.dir, 'skills', 'slides'));
    await writeFile(join(tree.dir, 'skills', 'slides', 'SKILL.md'), skillMarkdown('slides', 'Make slide decks.'));
    await writeFile(join(tree.dir, 'skills', 'docx', 'SKILL.md'), skillMarkdown('docx', 'Spreadsheet formulas.'));
    await fs.refresh();
    expect((await search.search('slide deck')).map((hit) => hit.name)).toEqual(['slides']);
    expect(await search.search('word documents')).toEqual([]);
    expect((await search.search('spreadsheet')).map((hit) => hit.name)).toEqual(['docx']);
    expect(lists()).toBe(2);
  });

  it("gives each caller only the skills the repository's filter shows that caller", async () => {
    const repository = filterSkills(
      createMemorySkillRepository([
        { name: 'payroll', description: 'Run the monthly payroll report.', body: 'x' },
        { name: 'reports', description: 'Write a weekly status report.', body: 'x' },
      ]),
      (summary, context) => summary.name !== 'payroll' || context.roles?.includes('finance') === true,
    );
    const search = createSkillSearch(repository);
    expect((await search.search('payroll report', { context: { roles: ['staff'] } })).map((hit) => hit.name)).toEqual([
      'reports',
    ]);
    expect((await search.search('payroll report', { context: { roles: ['finance'] } })).map((hit) => hit.name)).toEqual(
      ['payroll', 'reports'],
    );
  });
});
