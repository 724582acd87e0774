import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusRoot, hasCorpus } from '../../test/support/corpus.js';
import { FsSkillRepository } from './fs-skill-repository.js';

const corpus = corpusRoot;

/** Every SKILL.md / skill.md under a folder, found independently of the repository's scanner. */
async function skillFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && (entry.name === 'SKILL.md' || entry.name === 'skill.md'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Listed, skipped, shadowed, and nested (a SKILL.md bundled inside another skill) per collection. */
const expected: Record<string, { listed: number; skipped: number; shadowed: number; nested: number }> = {
  anthropics__skills: { listed: 14, skipped: 0, shadowed: 0, nested: 0 },
  obra__superpowers: { listed: 14, skipped: 0, shadowed: 0, nested: 0 },
  mattpocock__skills: { listed: 41, skipped: 0, shadowed: 0, nested: 0 },
  'K-Dense-AI__claude-scientific-skills': { listed: 134, skipped: 0, shadowed: 0, nested: 0 },
  'github__awesome-copilot': { listed: 404, skipped: 0, shadowed: 0, nested: 15 },
  vercel__ai: { listed: 13, skipped: 0, shadowed: 1, nested: 0 },
};

describe.runIf(hasCorpus)('the corpus', () => {
  it('has the collections this test knows', async () => {
    const folders = (await readdir(corpus, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.sort()).toEqual(Object.keys(expected).sort());
  });

  for (const [collection, counts] of Object.entries(expected)) {
    it(`accounts for every SKILL.md of ${collection}`, async () => {
      const root = join(corpus, collection);
      const repository = await FsSkillRepository.open({ roots: [root] });
      const summaries = await repository.list();
      const report = await repository.report();
      const files = await skillFiles(root);

      const listed = new Set(summaries.map((summary) => join(summary.path ?? '', 'SKILL.md')));
      const skipped = new Set(report.skipped.map((entry) => entry.path));
      const shadowed = new Set(report.shadowed.map((entry) => join(entry.path, 'SKILL.md')));
      const owners = summaries.map((summary) => summary.path ?? '');
      const nested = files.filter(
        (file) =>
          !listed.has(file) &&
          !skipped.has(file) &&
          !shadowed.has(file) &&
          owners.some((owner) => file.startsWith(`${owner}/`)),
      );
      expect({ listed: listed.size, skipped: skipped.size, shadowed: shadowed.size, nested: nested.length }).toEqual(
        counts,
      );
      expect(listed.size + skipped.size + shadowed.size + nested.length).toBe(files.length);
      for (const entry of report.skipped) expect(entry.reason).not.toBe('');
      // A nested SKILL.md is a bundled file of the skill that owns it.
      for (const file of nested) {
        const owner = summaries.find((summary) => file.startsWith(`${summary.path}/`));
        expect(await repository.listFiles(owner?.name ?? '')).toContain(relative(owner?.path ?? '', file));
      }
    });
  }

  it('loads every listed skill of the corpus as one root', async () => {
    const repository = await FsSkillRepository.open({ roots: [corpus] });
    const summaries = await repository.list();
    expect(summaries.length).toBe(618);
    // Three names appear in two collections; the earlier path wins.
    expect((await repository.report()).shadowed).toHaveLength(3);
    const loaded = await Promise.all(summaries.map((summary) => repository.get(summary.name)));
    for (const skill of loaded) {
      expect(skill.description.length).toBeGreaterThan(0);
      expect(skill.docs.every((doc) => !['SKILL.md', 'skill.md'].includes(doc))).toBe(true);
    }
  });
});
