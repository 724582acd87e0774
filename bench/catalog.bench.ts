// Token cost of the catalog on the real corpus: skillbox's text and XML catalogs against the floor
// (names and descriptions counted alone) and against injecting every body (and doc) up front, plus
// the listing of a peer on npm (bash-tool's skill tool, whose catalog lives in the tool description),
// measured on the same skills in the same run. Figures only; nothing here fails on a number.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { renderCatalog } from '../src/disclosure/catalog.js';
import { countTokens } from '../src/disclosure/token-counter.js';
import { buildTokenReport, percentSaved } from '../src/disclosure/token-report.js';
import { createFsSkillRepository } from '../src/repository/fs-skill-repository.js';
import type { SkillRepository, SkillSummary } from '../src/repository/types.js';
import {
  baselineLabel,
  corpusRoot,
  formatSpread,
  importBaseline,
  interleavedTimes,
  measureInFreshProcess,
  median,
  packageVersion,
  pairedRatio,
  quick,
  reportRatio,
  spreadOf,
} from './bench-support.js';
import { generatedSummaries } from './generated-skills.js';

const here = fileURLToPath(import.meta.url);
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

/**
 * With --quick, no doc is counted: counting the docs was more than half of this benchmark's time
 * (7 of 15 s), and the figures that matter, the catalog against the floor and against the bodies,
 * do not use them. The full run counts every doc.
 */
function withoutDocs(repository: SkillRepository): SkillRepository {
  return {
    list: (context) => repository.list(context),
    get: async (name, context) => ({ ...(await repository.get(name, context)), docs: [] }),
    listFiles: (name, context) => repository.listFiles(name, context),
    readFile: (name, path, context) => repository.readFile(name, path, context),
    report: () => repository.report(),
    refresh: () => repository.refresh(),
  };
}

function ratio(value: number, base: number): string {
  return base === 0 ? 'n/a' : `${(value / base).toFixed(3)}x`;
}

export async function run(): Promise<void> {
  countTokens('warm up the tokenizer');
  const corpus = corpusRoot();
  if (corpus === undefined) {
    console.log('no corpus (set SKILLBOX_CORPUS or put shared/corpus beside the repository): generated skills only');
    await scale();
    return;
  }
  console.log(
    `collection | skills | floor (name+desc) | text catalog | xml catalog | bash-tool ${packageVersion('bash-tool')} listing | all bodies | bodies+docs${quick ? ' (full run only)' : ''} | text saves vs bodies | vs bodies+docs`,
  );
  let floor = 0;
  let text = 0;
  let xml = 0;
  let bodies = 0;
  let docs = 0;
  // The largest collection's listing, kept for the rendering figures below (listing it again cost a cold walk).
  let largest: SkillSummary[] = [];
  for (const [name, folder] of collections) {
    const directory = join(corpus, name, folder);
    const repository = await createFsSkillRepository({ roots: [directory] });
    const report = await buildTokenReport({ repository: quick ? withoutDocs(repository) : repository });
    const summaries = await repository.list();
    if (summaries.length > largest.length) largest = summaries;
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
        quick ? '-' : totals.bodies_and_docs,
        `${percentSaved(totals.catalog, totals.bodies)}%`,
        quick ? '-' : `${percentSaved(totals.catalog, totals.bodies_and_docs)}%`,
      ].join(' | '),
    );
  }
  console.log(
    `all | floor ${floor} | text ${text} (${ratio(text, floor)}) | xml ${xml} (${ratio(xml, floor)}) | bodies ${bodies} | ${quick ? `saves ${percentSaved(text, bodies)}%` : `bodies+docs ${docs} | saves ${percentSaved(text, bodies)}% / ${percentSaved(text, docs)}%`}`,
  );

  // Rendering cost and the budget path on the largest collection.
  await renderTimes(largest);
  await scale();
}

type CatalogModule = typeof import('../src/disclosure/catalog.js');

/**
 * Rendering against its floors, interleaved: the unbudgeted catalog against joining the same
 * `- name: description` lines (the least work that makes a catalog), and a token budget against
 * counting the budgeted output once (the least work that checks a text against a budget).
 */
async function renderTimes(skills: SkillSummary[]): Promise<void> {
  const baseline = await importBaseline<CatalogModule>('disclosure/catalog.ts');
  const label = baselineLabel();
  const runs = quick ? 3 : 21;
  const plain = await interleavedTimes(
    {
      render: () => renderCatalog({ skills, tools: ['skill_load'] }),
      floor: () =>
        [
          'Available skills:',
          ...skills.map((skill) => `- ${skill.name}: ${skill.description.replace(/\s+/g, ' ').trim()}`),
        ].join('\n'),
    },
    runs * 5,
  );
  console.log(
    `\nrender ${skills.length} skills, no budget: ${formatSpread(spreadOf(plain.render), 3)} ms; floor (join the lines) ${formatSpread(spreadOf(plain.floor), 3)} ms; ratio ${formatSpread(pairedRatio(plain.render, plain.floor))}`,
  );
  reportRatio({
    benchmark: 'catalog',
    comparison: `render ${skills.length} corpus skills / join the lines`,
    ratio: pairedRatio(plain.render, plain.floor),
  });
  console.log(
    `token budget on ${skills.length} skills | this ms | floor: count the output once ms | this / floor${baseline ? ` | ${label} ms | this / ${label}` : ''}`,
  );
  for (const format of ['text', 'xml'] as const) {
    for (const tokens of [20_000, 4_000, 1_000]) {
      const options = { skills, format, budget: { tokens }, tools: ['skill_load'] };
      const output = renderCatalog(options);
      const tasks: Record<string, () => unknown> = {
        render: () => renderCatalog(options),
        floor: () => countTokens(output),
      };
      if (baseline) tasks.baseline = () => baseline.renderCatalog(options);
      const times = await interleavedTimes(tasks, runs);
      const ratio = pairedRatio(times.render!, times.floor!);
      const cells = [
        `${format} ${tokens} tokens -> ${countTokens(output)}`,
        formatSpread(spreadOf(times.render!), 1),
        formatSpread(spreadOf(times.floor!), 1),
        formatSpread(ratio),
      ];
      reportRatio({ benchmark: 'catalog', comparison: `${format} budget ${tokens} tokens / count output once`, ratio });
      if (times.baseline) {
        cells.push(formatSpread(spreadOf(times.baseline), 1), formatSpread(pairedRatio(times.render!, times.baseline)));
        reportRatio({
          benchmark: 'catalog',
          comparison: `${format} budget ${tokens} tokens: this / ${label}`,
          ratio: pairedRatio(times.render!, times.baseline),
          goal: '<= 1',
        });
      }
      console.log(cells.join(' | '));
    }
  }
}

interface ScaleFigures {
  skills: number;
  ms: number;
  /** Peak resident memory during the renders minus resident memory before them. */
  peakBytes: number;
  length: number;
}

/** Child side: renders N generated skills with an 8,000-token budget (median of up to 9 warm renders), measures time and peak memory. */
async function scaleInChild(request: { skills: number; implementation: 'this' | 'baseline' }): Promise<void> {
  const module =
    request.implementation === 'this'
      ? await import('../src/disclosure/catalog.js')
      : (await importBaseline<CatalogModule>('disclosure/catalog.ts'))!;
  const skills = generatedSummaries(request.skills);
  const render = () => module.renderCatalog({ skills, budget: { tokens: 8_000 }, tools: ['skill_load'] });
  // Warm (the encoder built, the code compiled) where a render is quick enough to repeat.
  const rounds = request.skills <= 10_000 ? 9 : request.skills <= 50_000 ? 3 : 1;
  if (rounds > 1) render();
  else module.renderCatalog({ skills: skills.slice(0, 100), budget: { tokens: 1_000 } });
  const before = process.memoryUsage().rss;
  const times: number[] = [];
  let length = 0;
  for (let round = 0; round < rounds; round += 1) {
    const started = performance.now();
    length = render().length;
    times.push(performance.now() - started);
  }
  const figures: ScaleFigures = {
    skills: request.skills,
    ms: median(times),
    peakBytes: Math.max(process.resourceUsage().maxRSS * 1024 - before, 0),
    length,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

/**
 * Budgeted rendering as the library grows, each size in a fresh process (so peak memory is that
 * render's): time per skill should stay flat (linear rendering) and so should memory per skill.
 */
async function scale(): Promise<void> {
  const sizes = quick ? [1_000, 10_000] : [1_000, 10_000, 50_000, 200_000, 1_000_000];
  const label = baselineLabel();
  console.log(
    `\nbudgeted render (8,000 tokens) of N generated skills, each size in a fresh process; median of warm renders (9 up to 10k skills, 3 up to 50k, then one)${label ? `; ${label} in its own process, up to ${quick ? '10k' : '50k'} skills` : ''}`,
  );
  console.log(
    `skills | ms | µs per skill | peak MB over start | bytes per skill${label ? ` | ${label} ms | ${label} peak MB | this / ${label} time` : ''}`,
  );
  let first: ScaleFigures | undefined;
  for (const skills of sizes) {
    const result = measureInFreshProcess<ScaleFigures>(here, 'SKILLBOX_CATALOG_SCALE_BENCH', {
      skills,
      implementation: 'this',
    });
    if (typeof result === 'string') {
      console.log(`${skills} | ${result}`);
      continue;
    }
    first ??= result;
    const cells = [
      String(skills),
      result.ms.toFixed(1),
      ((result.ms * 1000) / skills).toFixed(2),
      (result.peakBytes / 2 ** 20).toFixed(1),
      (result.peakBytes / skills).toFixed(0),
    ];
    if (label !== undefined && skills <= (quick ? 10_000 : 50_000)) {
      const old = measureInFreshProcess<ScaleFigures>(here, 'SKILLBOX_CATALOG_SCALE_BENCH', {
        skills,
        implementation: 'baseline',
      });
      if (typeof old === 'string') cells.push(old, '', '');
      else {
        cells.push(old.ms.toFixed(1), (old.peakBytes / 2 ** 20).toFixed(1), `${(result.ms / old.ms).toFixed(3)}x`);
        reportRatio({
          benchmark: 'catalog scale',
          comparison: `8k-token budget, ${skills} skills: this / ${label} (time)`,
          ratio: spreadOf([result.ms / old.ms]),
          goal: '< 1',
        });
        reportRatio({
          benchmark: 'catalog scale',
          comparison: `8k-token budget, ${skills} skills: this / ${label} (peak memory)`,
          ratio: spreadOf([result.peakBytes / Math.max(old.peakBytes, 1)]),
          goal: '< 1',
        });
      }
    }
    console.log(cells.join(' | '));
    if (skills !== first.skills) {
      reportRatio({
        benchmark: 'catalog scale',
        comparison: `time per skill at ${skills} / at ${first.skills}`,
        ratio: spreadOf([result.ms / skills / (first.ms / first.skills)]),
        goal: '~1 (linear)',
      });
    }
  }
}

const child = process.env.SKILLBOX_CATALOG_SCALE_BENCH;
if (child !== undefined)
  await scaleInChild(JSON.parse(child) as { skills: number; implementation: 'this' | 'baseline' });
