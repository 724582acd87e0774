import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusRoot, hasCorpus } from '../../test/support/corpus.js';
import { FsSkillRepository } from '../repository/fs-skill-repository.js';
import { createSkillSearch } from './skill-search.js';

interface CorpusQuery {
  skill: string;
  query: string;
}

/**
 * Measured 0.982 (55 of 56) with names and descriptions, with and without bodies
 * (bench/skill-search.bench.ts); the floor leaves room for a tokenizer change to move one or two
 * queries, not for search to stop working.
 */
const recallAtFiveFloor = 0.9;

describe.runIf(hasCorpus)('skill search on the corpus', () => {
  it(`finds the skill a task-style query was written for in its first five results (recall@5 >= ${recallAtFiveFloor})`, async () => {
    const roots = (await readdir(corpusRoot, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(corpusRoot, entry.name))
      .sort();
    const repository = await FsSkillRepository.open({ roots });
    const { queries } = JSON.parse(
      await readFile(new URL('./fixtures/corpus-queries.json', import.meta.url), 'utf8'),
    ) as { queries: CorpusQuery[] };
    const names = new Set((await repository.list()).map((summary) => summary.name));
    // Every expected skill exists: a renamed corpus skill must fail here, not count as a miss.
    expect(queries.filter((entry) => !names.has(entry.skill))).toEqual([]);
    const search = createSkillSearch(repository);
    const missed: string[] = [];
    for (const { skill, query } of queries) {
      const hits = await search.search(query, { limit: 5 });
      if (!hits.some((hit) => hit.name === skill)) missed.push(`${skill} <- "${query}"`);
    }
    const recall = (queries.length - missed.length) / queries.length;
    expect(recall, `missed:\n${missed.join('\n')}`).toBeGreaterThanOrEqual(recallAtFiveFloor);
  }, 60_000);
});
