// Token cost of the catalog on the real corpus: skillbox's text and XML catalogs against the floor
// (names and descriptions counted alone) and against injecting every body (and doc) up front, plus
// the listing of a peer on npm (bash-tool's skill tool, whose catalog lives in the tool description),
// measured on the same skills in the same run. Figures only; nothing here fails on a number.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { renderCatalog } from '../src/disclosure/catalog.js';
import { countTokens } from '../src/disclosure/token-counter.js';
import { buildTokenReport, percentSaved } from '../src/disclosure/token-report.js';
import { createFsSkillRepository } from '../src/repository/fs-skill-repository.js';
import { median } from './bench-support.js';

const corpus = new URL('../../shared/corpus/', import.meta.url).pathname;
const collections: [string, string][] = [
  ['anthropics__skills', 'skills'],
  ['obra__superpowers', 'skills'],
  ['vercel__ai', 'skills'],
  ['K-Dense-AI__claude-scientific-skills', 'scientific-skills'],
  ['github__awesome-copilot', 'skills'],
  ['mattpocock__skills', 'skills'],
];

async function peerListingTokens(directory: string): Promise<{ tokens: number; skills: number } | string> {
  try {
    const { experimental_createSkillTool } = await import('bash-tool');
    const toolkit = await experimental_createSkillTool({ skillsDirectory: directory });
    const description = (toolkit.skill as { description?: string }).description ?? '';
    return { tokens: countTokens(`${description}\n${toolkit.instructions}`), skills: toolkit.skills.length };
  } catch (error) {
    return `n/a (${(error as Error).message.split('\n')[0]})`;
  }
}

function ratio(value: number, base: number): string {
  return base === 0 ? 'n/a' : `${(value / base).toFixed(3)}x`;
}

export async function run(): Promise<void> {
  countTokens('warm up the tokenizer');
  console.log('collection | skills | floor (name+desc) | text catalog | xml catalog | bash-tool listing | all bodies | bodies+docs | text saves vs bodies | vs bodies+docs');
  let floor = 0;
  let text = 0;
  let xml = 0;
  let bodies = 0;
  let docs = 0;
  for (const [name, folder] of collections) {
    const directory = join(corpus, name, folder);
    const repository = await createFsSkillRepository({ roots: [directory] });
    const report = await buildTokenReport({ repository });
    const summaries = await repository.list();
    const xmlTokens = countTokens(renderCatalog({ skills: summaries, format: 'xml', guidance: false }));
    const peer = await peerListingTokens(directory);
    const { totals } = report;
    floor += totals.name_description;
    text += totals.catalog;
    xml += xmlTokens;
    bodies += totals.bodies;
    docs += totals.bodies_and_docs;
    console.log(
      [
        name,
        report.skills.length,
        totals.name_description,
        `${totals.catalog} (${ratio(totals.catalog, totals.name_description)})`,
        `${xmlTokens} (${ratio(xmlTokens, totals.name_description)})`,
        typeof peer === 'string'
          ? peer
          : peer.skills === report.skills.length
            ? `${peer.tokens} (${ratio(peer.tokens, totals.name_description)}; ${ratio(peer.tokens, totals.catalog)} of ours)`
            : `${peer.tokens} (found ${peer.skills} of ${report.skills.length} skills: no ratio)`,
        totals.bodies,
        totals.bodies_and_docs,
        `${percentSaved(totals.catalog, totals.bodies)}%`,
        `${percentSaved(totals.catalog, totals.bodies_and_docs)}%`,
      ].join(' | '),
    );
  }
  console.log(
    `all | floor ${floor} | text ${text} (${ratio(text, floor)}) | xml ${xml} (${ratio(xml, floor)}) | bodies ${bodies} | bodies+docs ${docs} | saves ${percentSaved(text, bodies)}% / ${percentSaved(text, docs)}%`,
  );

  // Rendering cost and the budget path on the largest collection.
  const repository = await createFsSkillRepository({ roots: [join(corpus, 'github__awesome-copilot', 'skills')] });
  const skills = await repository.list();
  let started = performance.now();
  const rounds = 50;
  for (let index = 0; index < rounds; index += 1) renderCatalog({ skills, tools: ['skill_load'] });
  const renderMs = (performance.now() - started) / rounds;
  started = performance.now();
  const joined = skills.map((skill) => `- ${skill.name}: ${skill.description}`).join('\n');
  const floorMs = performance.now() - started;
  console.log(`render ${skills.length} skills: ${renderMs.toFixed(2)} ms (plain string join floor ${floorMs.toFixed(2)} ms, ${ratio(renderMs, Math.max(floorMs, 0.001))}); ${joined.length} chars`);
  for (const characters of [40_000, 8_000]) {
    started = performance.now();
    const budgeted = renderCatalog({ skills, budget: { characters }, tools: ['skill_load'] });
    const shown = /showing (\d+) of (\d+)/.exec(budgeted);
    console.log(
      `budget ${characters} chars: ${budgeted.length} chars, ${countTokens(budgeted)} tokens, ${shown ? `${shown[1]} of ${shown[2]} described` : 'all described (shortened)'}, ${(performance.now() - started).toFixed(0)} ms`,
    );
  }
  budgetSearch(skills);
}

/**
 * The token-budget search: the first budgeted render in the process (its pre-token memory empty)
 * and the median of repeats (what an agent's later model calls pay), against the floor of any
 * budget check, counting the returned text once with js-tiktoken, and against counting the whole
 * unbudgeted catalog once (what every step of a search that re-counts the text pays at least).
 */
function budgetSearch(skills: Awaited<ReturnType<Awaited<ReturnType<typeof createFsSkillRepository>>['list']>>): void {
  console.log(`token budget on ${skills.length} skills | first render | repeat (median of 5) | count output once (floor) | count full catalog once | repeat / floor | repeat / full count`);
  for (const format of ['text', 'xml'] as const) {
    let started = performance.now();
    const fullCount = countTokens(renderCatalog({ skills, format, tools: ['skill_load'] }));
    const fullCountMs = performance.now() - started;
    for (const tokens of [40_000, 20_000, 4_000, 1_000]) {
      const options = { skills, format, budget: { tokens }, tools: ['skill_load'] };
      started = performance.now();
      const text = renderCatalog(options);
      const firstMs = performance.now() - started;
      const repeats = Array.from({ length: 5 }, () => {
        const start = performance.now();
        renderCatalog(options);
        return performance.now() - start;
      });
      started = performance.now();
      const outputTokens = countTokens(text);
      const floorMs = performance.now() - started;
      const repeatMs = median(repeats);
      console.log(
        [
          `${format} ${tokens} tokens -> ${outputTokens}`,
          `${firstMs.toFixed(1)} ms`,
          `${repeatMs.toFixed(1)} ms`,
          `${floorMs.toFixed(1)} ms`,
          `${fullCountMs.toFixed(1)} ms (${fullCount} tokens)`,
          ratio(repeatMs, floorMs),
          ratio(repeatMs, fullCountMs),
        ].join(' | '),
      );
    }
  }
}
