// Token counting: skillbox's countTokens (gpt-tokenizer's o200k_base) against js-tiktoken's
// o200k_base, which skillbox used before and which still comes with the dev dependencies (through
// deepagents' @langchain/core). Three figures: the first count in a fresh process (loading the
// encoder: what a CLI start pays), the two counting every .md file of the shared corpus taking turns
// pass by pass (so load from other jobs on a shared machine weighs on both alike), and the worst case
// for a byte-pair merger, long pre-tokens without spaces. Figures only; nothing fails on a number.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  corpusRoot,
  formatSpread,
  interleavedTimes,
  measureInFreshProcess,
  median,
  packageVersion,
  pairedRatio,
  quick,
  reportRatio,
} from './bench-support.js';

const here = fileURLToPath(import.meta.url);
const requestVariable = 'SKILLBOX_TOKENIZER_BENCH';
const require = createRequire(import.meta.url);
const counters = ['skillbox (gpt-tokenizer)', 'js-tiktoken'] as const;
type Counter = (typeof counters)[number];

/** A function that counts the o200k tokens of a text, loaded on the call. */
async function loadCounter(counter: Counter): Promise<(text: string) => number> {
  if (counter === 'skillbox (gpt-tokenizer)') return (await import('../src/disclosure/token-counter.js')).countTokens;
  // Resolved from @langchain/core, which depends on it; skillbox itself no longer does.
  const fromLangchain = createRequire(require.resolve('@langchain/core/package.json'));
  const { Tiktoken } = fromLangchain('js-tiktoken/lite') as typeof import('js-tiktoken/lite');
  const ranks = fromLangchain('js-tiktoken/ranks/o200k_base') as { default?: unknown };
  const encoder = new Tiktoken((ranks.default ?? ranks) as ConstructorParameters<typeof Tiktoken>[0]);
  return (text) => encoder.encode(text, [], []).length;
}

const quickEvery = 6;

/**
 * Every .md file of the corpus; with --quick, every sixth SKILL.md in path order (1.4 million of
 * the 6.3 million characters in every SKILL.md), counted in three passes: js-tiktoken's one pass
 * over every SKILL.md took five seconds and gave a ratio of one sample, which one burst of other
 * work could move. Both counters count the same texts, taking turns.
 */
function corpusTexts(corpus: string): string[] {
  return readdirSync(corpus, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && (quick ? entry.name === 'SKILL.md' : entry.name.endsWith('.md')))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort()
    .filter((_, index) => !quick || index % quickEvery === 0)
    .map((file) => readFileSync(file, 'utf8'));
}

/**
 * The worst case for a byte-pair merger: long pre-tokens without a space. A quarter of the length
 * with --quick: the full size took over two seconds, and countTokens cuts such runs into chunks of
 * a fixed size (src/disclosure/token-counter.ts), so the time grows with the length alone.
 */
const spacelessLetters = quick ? 25_000 : 100_000;
const spacelessBase64Bytes = quick ? 37_500 : 150_000;

/** In a fresh process: load the counter and count one short text. */
async function firstCount(counter: Counter): Promise<{ firstCountMs: number }> {
  const started = performance.now();
  (await loadCounter(counter))('Extract text and tables from PDF files.');
  return { firstCountMs: performance.now() - started };
}

export async function run(): Promise<void> {
  console.log(
    `counters: skillbox's countTokens on gpt-tokenizer ${packageVersion('gpt-tokenizer')}; peer js-tiktoken ${packageVersion('js-tiktoken')}`,
  );
  for (const counter of counters) {
    const cold = measureInFreshProcess<{ firstCountMs: number }>(here, requestVariable, { counter });
    console.log(
      `${counter}: first count in a fresh process (load + count) ${typeof cold === 'string' ? cold : `${cold.firstCountMs.toFixed(0)} ms`}`,
    );
  }
  const corpus = corpusRoot();
  if (corpus === undefined) {
    console.log('no corpus (set SKILLBOX_CORPUS or put shared/corpus beside the repository): corpus passes skipped');
    return;
  }
  const texts = corpusTexts(corpus);
  const passes = 3;
  const characters = texts.reduce((sum, text) => sum + text.length, 0);
  const loaded = Object.fromEntries(
    await Promise.all(counters.map(async (counter) => [counter, await loadCounter(counter)])),
  ) as Record<Counter, (text: string) => number>;
  // The totals come from the timed passes themselves: a separate pass to count them doubled a
  // quick run's time here for no figure.
  const totals = {} as Record<Counter, number>;
  const times = await interleavedTimes(
    Object.fromEntries(
      counters.map((counter) => [
        counter,
        () => {
          totals[counter] = texts.reduce((sum, text) => sum + loaded[counter](text), 0);
        },
      ]),
    ) as Record<Counter, () => void>,
    passes,
    // A pass over a sixth of the corpus is short enough for its first, cold run to stand out:
    // --quick leaves one out.
    quick ? 1 : 0,
  );
  console.log(
    `corpus: ${texts.length} ${quick ? `SKILL.md (every ${quickEvery}th)` : '.md'} files, ${(characters / 1e6).toFixed(1)} M characters; o200k tokens: ${counters.map((counter) => `${counter} ${totals[counter]}`).join(', ')}`,
  );
  for (const counter of counters)
    console.log(
      `${counter}: pass over the corpus ${median(times[counter]).toFixed(0)} ms (median of ${passes}${quick ? ' after one warm-up pass' : ''}, taking turns)`,
    );
  const ratio = pairedRatio(times['skillbox (gpt-tokenizer)'], times['js-tiktoken']);
  console.log(`skillbox / js-tiktoken (time): ${formatSpread(ratio)}`);
  reportRatio({
    benchmark: 'tokenizer',
    comparison: `corpus pass: skillbox (gpt-tokenizer ${packageVersion('gpt-tokenizer')}) / js-tiktoken ${packageVersion('js-tiktoken')}`,
    ratio,
    goal: '< 1',
  });
  const longStarted = performance.now();
  const base64 = Buffer.alloc(spacelessBase64Bytes, 7).toString('base64');
  loaded['skillbox (gpt-tokenizer)']('a'.repeat(spacelessLetters));
  loaded['skillbox (gpt-tokenizer)'](base64);
  console.log(
    `skillbox: ${spacelessLetters.toLocaleString('en')} letters and ${base64.length.toLocaleString('en')} base64 characters without a space: ${(performance.now() - longStarted).toFixed(0)} ms`,
  );
}

const request = process.env[requestVariable];
if (request !== undefined)
  console.log(JSON.stringify(await firstCount((JSON.parse(request) as { counter: Counter }).counter)));
