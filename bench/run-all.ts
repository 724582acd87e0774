// Runs every bench/*.bench.ts in turn (or those named on the command line) and prints their
// figures, then one table of every ratio they reported. Benchmarks never fail on a time; they exit
// non-zero only when they cannot run.
//   npm run bench                       all benchmarks, full size
//   npm run bench -- --quick            fewer rounds and smaller data (under two minutes)
//   npm run bench -- catalog listing    only the files whose name holds one of the words
//   npm run bench -- --baseline=main    also time the code of another commit where a benchmark can
// A new benchmark needs no registration: a file named *.bench.ts exporting run() is picked up.
import { readdirSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatSpread, quick, reportedRatios } from './bench-support.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const wanted = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
const files = readdirSync(here)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => wanted.length === 0 || wanted.some((name) => file.includes(name)))
  .sort();
// A benchmark that would repeat another's work (scale.bench.ts runs workspace-snapshot's) skips it when both run.
process.env.SKILLBOX_BENCH_SELECTED = files.join(',');

// Benchmarks that read their size from the environment get quick sizes unless the caller set them.
if (quick) {
  process.env.RUNTIME_BENCH_RUNS ??= '8';
  process.env.SKILL_RUN_BENCH_RUNS ??= '6';
  // The staging goal is set for a 50 MiB skill: at 10 MiB the fixed costs outweigh the copy.
  process.env.STAGING_BENCH_MB ??= '50';
  process.env.STAGING_BENCH_ROUNDS ??= '3';
}

const started = performance.now();
const durations: string[] = [];
console.log(
  `node ${process.version}, ${quick ? 'quick' : 'full'} run; ratios are medians of paired samples [middle half of the samples]`,
);
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const fileStarted = performance.now();
  const module = (await import(pathToFileURL(join(here, file)).href)) as { run?: () => Promise<void> };
  if (typeof module.run !== 'function') throw new Error(`${file} does not export run()`);
  await module.run();
  durations.push(`${file.replace('.bench.ts', '')} ${((performance.now() - fileStarted) / 1000).toFixed(0)} s`);
}

const rows = reportedRatios();
if (rows.length > 0) {
  console.log(`\n=== ratios (value / base; < 1 is faster or smaller than the base) ===`);
  const width = Math.max(...rows.map((row) => row.benchmark.length), 9);
  const comparisonWidth = Math.max(...rows.map((row) => row.comparison.length), 10);
  console.log(
    `${'benchmark'.padEnd(width)} | ${'comparison'.padEnd(comparisonWidth)} | ratio [spread]            | goal`,
  );
  for (const row of rows)
    console.log(
      `${row.benchmark.padEnd(width)} | ${row.comparison.padEnd(comparisonWidth)} | ${formatSpread(row.ratio).padEnd(25)} | ${row.goal ?? ''}`,
    );
}
console.log(
  `\nbenchmarks took ${((performance.now() - started) / 1000).toFixed(0)} s (${durations.join(', ')}; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores)`,
);
