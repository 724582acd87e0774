// Skill search (src/search/): quality on the real corpus (recall@1 and @5 of task-style queries
// written from held-back descriptions) and cost at 1k, 10k and 100k skills (index build, memory,
// query latency, re-indexing after one skill changed), for the index skillbox uses (its own BM25)
// against MiniSearch fed the same terms. Figures only: nothing here fails on a number.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { renderCatalogWithReport } from '../src/disclosure/catalog.js';
import { countTokens } from '../src/disclosure/token-counter.js';
import { FsSkillRepository } from '../src/repository/fs-skill-repository.js';
import type { SkillRepository, SkillSummary } from '../src/repository/types.js';
import { Bm25Index, type TextIndex } from '../src/search/bm25-index.js';
import { createSkillSearch, type SkillSearchOptions } from '../src/search/skill-search.js';
import { createInMemoryStateView } from '../src/state/in-memory-state-view.js';
import { createSkillSearchTool } from '../src/tools/skill-search-tool.js';
import { corpusRoot, median, pairedRatio, quantile, quick, reportRatio } from './bench-support.js';
import { createMiniSearchIndex } from './minisearch-text-index.js';

interface CorpusQuery {
  skill: string;
  query: string;
}

const queries = (
  JSON.parse(readFileSync(new URL('../src/search/fixtures/corpus-queries.json', import.meta.url), 'utf8')) as {
    queries: CorpusQuery[];
  }
).queries;

const engines: Record<string, (weights: readonly number[]) => TextIndex> = {
  'own BM25': (weights) => new Bm25Index(weights),
  MiniSearch: createMiniSearchIndex,
};

/** A repository over summaries in memory, whose generation the benchmark moves by hand. */
function summaryRepository(summaries: SkillSummary[]): SkillRepository & { bump(): void } {
  let generation = 1;
  return {
    list: async () => summaries,
    get: async () => {
      throw new Error('not used');
    },
    listFiles: async () => [],
    readFile: async () => Buffer.alloc(0),
    report: async () => ({ skipped: [], shadowed: [], warnings: [] }),
    refresh: async () => undefined,
    generation: () => generation,
    bump: () => {
      generation += 1;
    },
  };
}

async function quality(repository: SkillRepository): Promise<void> {
  console.log(`quality on the corpus: ${queries.length} queries, one expected skill each`);
  for (const bodies of [false, true]) {
    for (const [label, createIndex] of Object.entries(engines)) {
      const options: SkillSearchOptions = { bodies, createIndex };
      const search = createSkillSearch(repository, options);
      let atOne = 0;
      let atFive = 0;
      for (const { skill, query } of queries) {
        const rank = (await search.search(query, { limit: 5 })).findIndex((hit) => hit.name === skill);
        if (rank === 0) atOne += 1;
        if (rank >= 0) atFive += 1;
      }
      console.log(
        `  ${label.padEnd(10)} ${bodies ? 'names+descriptions+bodies' : 'names+descriptions      '}  recall@1 ${(atOne / queries.length).toFixed(3)}  recall@5 ${(atFive / queries.length).toFixed(3)}`,
      );
    }
  }
}

/** `count` skills made of the corpus's names and descriptions, repeated with numbered names: real words, real lengths. */
function scaledLibrary(base: readonly SkillSummary[], count: number): SkillSummary[] {
  return Array.from({ length: count }, (_, index) => {
    const source = base[index % base.length]!;
    return { name: `${source.name}-${index}`, description: source.description, path: `/skills/${index}` };
  });
}

function heapUsed(): number {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
}

interface ScaleSamples {
  builds: number[];
  heap: number[];
  queries: number[];
  changes: number[];
}

/** One build, the queries and one change, for one engine on one library. */
async function measureOnce(
  library: readonly SkillSummary[],
  createIndex: (weights: readonly number[]) => TextIndex,
  samples: ScaleSamples,
): Promise<void> {
  const repository = summaryRepository(library.map((summary) => ({ ...summary })));
  const search = createSkillSearch(repository, { createIndex });
  const before = heapUsed();
  let started = performance.now();
  await search.search('warm', { limit: 1 });
  samples.builds.push(performance.now() - started);
  samples.heap.push(heapUsed() - before);
  for (const { query } of queries) {
    started = performance.now();
    await search.search(query, { limit: 10 });
    samples.queries.push(performance.now() - started);
  }
  // One skill edited: the next search re-lists, compares, and re-indexes that one skill only.
  const summaries = await repository.list();
  summaries[0] = { ...summaries[0]!, description: `${summaries[0]!.description} Edited.` };
  repository.bump();
  started = performance.now();
  await search.search('edited', { limit: 1 });
  samples.changes.push(performance.now() - started);
}

async function scale(base: readonly SkillSummary[]): Promise<void> {
  const sizes = (process.env.SKILL_SEARCH_BENCH_SIZES ?? (quick ? '1000,10000' : '1000,10000,100000'))
    .split(',')
    .map(Number);
  console.log(
    `\ncost by library size (engines take turns each round; medians; query times over the ${queries.length} queries, limit 10)${globalThis.gc === undefined ? '; heap figures are rough without node --expose-gc' : ''}`,
  );
  console.log('  skills  engine      rounds  build ms   heap MB   query p50 ms  query p95 ms  one change ms');
  for (const size of sizes) {
    const library = scaledLibrary(base, size);
    // Each round at 10,000 skills builds both indexes and runs every query (seconds on a shared
    // machine): --quick takes two rounds there.
    const rounds = size >= 100000 ? 2 : quick ? (size >= 10000 ? 2 : 3) : 5;
    const names = Object.keys(engines);
    const samples = Object.fromEntries(
      names.map((name) => [name, { builds: [], heap: [], queries: [], changes: [] } as ScaleSamples]),
    );
    for (let round = 0; round < rounds; round += 1) {
      for (let turn = 0; turn < names.length; turn += 1) {
        const name = names[(round + turn) % names.length]!;
        await measureOnce(library, engines[name]!, samples[name]!);
      }
    }
    for (const name of names) {
      const { builds, heap, queries: times, changes } = samples[name]!;
      console.log(
        `  ${String(size).padStart(6)}  ${name.padEnd(10)} ${String(rounds).padStart(6)} ${median(builds).toFixed(1).padStart(9)} ${(median(heap) / 2 ** 20).toFixed(1).padStart(9)} ${median(times).toFixed(3).padStart(14)} ${quantile(times, 0.95).toFixed(3).padStart(13)} ${median(changes).toFixed(2).padStart(14)}`,
      );
    }
  }
}

export async function run(): Promise<void> {
  const corpus = corpusRoot();
  if (corpus === undefined) {
    console.log('no corpus (set SKILLBOX_CORPUS or put shared/corpus beside the repository): skill search needs it');
    return;
  }
  const roots = readdirSync(corpus, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(corpus, entry.name))
    .sort();
  const repository = await FsSkillRepository.open({ roots });
  await quality(repository);
  await catalogWithSearch(repository);
  await scale(await repository.list());
}

// ---- Catalog tokens: a 2,000-token budget with skill_search against the full catalog ----

/** The budget measured: what a request spends on the catalog when skill_search covers the rest. */
const searchCatalogBudget = 2_000;

/**
 * What the catalog costs on the corpus with a 2,000-token budget and skill_search (the shortened
 * catalog, plus the tool's definition, sent with every request, plus one search call's result when
 * the model needs one) against the full catalog sent with every request. Tokens are o200k_base.
 */
export async function catalogWithSearch(repository: SkillRepository): Promise<void> {
  const skills = await repository.list();
  const full = renderCatalogWithReport({ skills, tools: ['skill_load'] });
  const budgeted = renderCatalogWithReport({
    skills,
    tools: ['skill_load', 'skill_search'],
    budget: { tokens: searchCatalogBudget },
  });
  const tool = createSkillSearchTool({
    repository,
    skillSchema: z.string(),
    readPageBytes: 20_000,
    includeNonModelInvocable: false,
  });
  const definitionTokens = countTokens(
    JSON.stringify({ name: tool.name, description: tool.description, parameters: z.toJSONSchema(tool.inputSchema) }),
  );
  const context = { sessionId: 'bench', agentName: 'bench', state: createInMemoryStateView() };
  const resultTokens: number[] = [];
  for (const { query } of queries)
    resultTokens.push(countTokens(JSON.stringify(await tool.execute({ query }, context))));
  const perRequest = budgeted.tokens + definitionTokens;
  console.log(
    `\ncatalog on the corpus (${skills.length} skills), o200k_base tokens: full catalog ${full.tokens} (describes ${full.described} of ${full.total}); budget ${searchCatalogBudget} with skill_search ${budgeted.tokens} (describes ${budgeted.described} of ${budgeted.total}, over budget: ${budgeted.overBudget}, search offered: ${budgeted.searchOffered}) + skill_search definition ${definitionTokens} = ${perRequest} per request (${((perRequest / full.tokens) * 100).toFixed(1)}% of the full catalog); one skill_search result (8 hits) median ${median(resultTokens)}, 90th percentile ${quantile(resultTokens, 0.9)} over ${queries.length} queries`,
  );
  reportRatio({
    benchmark: 'skill-search',
    comparison: `catalog+skill_search at ${searchCatalogBudget} tokens / full catalog (corpus, per request)`,
    ratio: pairedRatio([perRequest], [full.tokens]),
    goal: '< 1',
  });
  reportRatio({
    benchmark: 'skill-search',
    comparison: `same plus one median skill_search result / full catalog (corpus)`,
    ratio: pairedRatio([perRequest + median(resultTokens)], [full.tokens]),
    goal: '< 1',
  });
}
