// Helpers the benchmarks share. Figures only: nothing here fails on a time.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** `npm run bench -- --quick`: fewer rounds and smaller generated data, for a run under two minutes. */
export const quick = process.argv.includes('--quick') || process.env.SKILLBOX_BENCH_QUICK === '1';

/**
 * The shared corpus of real skills, found as the tests find it (test/support/corpus.ts):
 * SKILLBOX_CORPUS, else `shared/corpus` beside the repository. Undefined when absent: the
 * benchmarks that need it say so and go on with generated data.
 */
export function corpusRoot(): string | undefined {
  const root = resolve(process.env.SKILLBOX_CORPUS ?? join(repositoryRoot, '..', 'shared', 'corpus'));
  return existsSync(root) ? root : undefined;
}

/** The middle value (the upper middle for an even count); robust to the odd slow run on a shared machine. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** The value below which `fraction` of the values lie (nearest rank). */
export function quantile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(fraction * (sorted.length - 1))))] as number;
}

/** A median with its spread: the middle half of the samples lies between `low` and `high`. */
export interface Spread {
  median: number;
  low: number;
  high: number;
  samples: number;
}

export function spreadOf(values: readonly number[]): Spread {
  return { median: median(values), low: quantile(values, 0.25), high: quantile(values, 0.75), samples: values.length };
}

/** `digits` decimals, or two significant digits for a figure too small to show that way. */
function figure(value: number, digits: number): string {
  return value !== 0 && Math.abs(value) < 10 ** -digits * 10 ? value.toPrecision(2) : value.toFixed(digits);
}

export function formatSpread(spread: Spread, digits = 2, unit = ''): string {
  return `${figure(spread.median, digits)}${unit} [${figure(spread.low, digits)}–${figure(spread.high, digits)}]`;
}

/**
 * Each task's wall times, the tasks taking turns call by call (their order rotating each round, so
 * none always runs right after another): on a machine shared with other work, load that comes and
 * goes then weighs on every task alike, so their ratios hold even when the absolute figures drift.
 */
export async function interleavedTimes<Name extends string>(
  tasks: Record<Name, () => Promise<unknown> | unknown>,
  runs: number,
  warmup = 1,
): Promise<Record<Name, number[]>> {
  const names = Object.keys(tasks) as Name[];
  const times = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Name, number[]>;
  for (let round = 0; round < warmup + runs; round += 1) {
    for (let turn = 0; turn < names.length; turn += 1) {
      const name = names[(round + turn) % names.length]!;
      const started = performance.now();
      await tasks[name]();
      if (round >= warmup) times[name].push(performance.now() - started);
    }
  }
  return times;
}

/** Median wall time of each task, the tasks taking turns (see `interleavedTimes`). */
export async function interleavedMedians<Name extends string>(
  tasks: Record<Name, () => Promise<unknown>>,
  runs: number,
  warmup = 1,
): Promise<Record<Name, number>> {
  const times = await interleavedTimes(tasks, runs, warmup);
  return Object.fromEntries(
    Object.entries(times).map(([name, values]) => [name, median(values as number[])]),
  ) as Record<Name, number>;
}

/**
 * Ratios of paired samples (sample i of `value` over sample i of `base`, taken in the same round),
 * with their spread: a pairing cancels load that drifts between rounds.
 */
export function pairedRatio(value: readonly number[], base: readonly number[]): Spread {
  const ratios = value.map((sample, index) => sample / (base[index] as number));
  return spreadOf(ratios);
}

/** One line of the closing table: what was compared, and how many times the base it took. */
export interface RatioRow {
  benchmark: string;
  comparison: string;
  ratio: Spread;
  /** What a good figure looks like, e.g. "<= 1.3" or ">= 0.9" (for the reader; nothing fails on it). */
  goal?: string;
}

const ratioRows: RatioRow[] = [];

/** Records a ratio for the table `npm run bench` prints at the end. */
export function reportRatio(row: RatioRow): void {
  ratioRows.push(row);
}

export function reportedRatios(): readonly RatioRow[] {
  return ratioRows;
}

/**
 * The `src/` folder of another commit (`--baseline=<git ref>`, or SKILLBOX_BENCH_BASELINE), copied
 * out once under node_modules/.cache so its imports resolve against this checkout's node_modules:
 * a benchmark can then time the code before a change against the code after it, in one run.
 * Undefined when no baseline was asked for.
 */
export function baselineSource(): string | undefined {
  const flag = process.argv.find((argument) => argument.startsWith('--baseline='));
  const ref = flag?.slice('--baseline='.length) ?? process.env.SKILLBOX_BENCH_BASELINE;
  if (ref === undefined || ref === '') return undefined;
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], {
    cwd: repositoryRoot,
    encoding: 'utf8',
  }).trim();
  const target = join(repositoryRoot, 'node_modules', '.cache', 'skillbox-bench-baseline', commit);
  if (!existsSync(join(target, 'src'))) {
    mkdirSync(target, { recursive: true });
    const archive = execFileSync('git', ['archive', '--format=tar', commit, 'src'], {
      cwd: repositoryRoot,
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', target], { input: archive });
  }
  return join(target, 'src');
}

/** The baseline's short commit, for labels. */
export function baselineLabel(): string | undefined {
  const source = baselineSource();
  return source === undefined ? undefined : `baseline ${dirname(source).split('/').pop()!.slice(0, 7)}`;
}

/** Imports `relativePath` (e.g. `repository/fs-skill-repository.ts`) from the baseline's src/. */
export async function importBaseline<Module>(relativePath: string): Promise<Module | undefined> {
  const source = baselineSource();
  if (source === undefined) return undefined;
  return (await import(pathToFileURL(join(source, relativePath)).href)) as Module;
}

/** The version of an installed npm package, for the peers' labels. */
export function packageVersion(name: string): string {
  try {
    const manifest = join(repositoryRoot, 'node_modules', ...name.split('/'), 'package.json');
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

/**
 * Runs `script` in a fresh Node process (so each measurement starts cold, with its own heap and
 * peak-RSS counter), passing `request` as JSON in the environment variable `variable`, and returns
 * the JSON object the child printed last. A failure comes back as a one-line `failed: …` string,
 * so one broken peer does not stop the rest of a benchmark.
 */
export function measureInFreshProcess<Result>(script: string, variable: string, request: unknown): Result | string {
  try {
    const output = execFileSync(
      process.execPath,
      ['--import', 'tsx', script, ...process.argv.filter((argument) => argument.startsWith('--'))],
      {
        env: { ...process.env, [variable]: JSON.stringify(request) },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    return JSON.parse(output.trim().split('\n').pop() ?? '') as Result;
  } catch (error) {
    return `failed: ${((error as { stderr?: string }).stderr ?? (error as Error).message).split('\n').find((line) => line.trim() !== '') ?? 'unknown error'}`;
  }
}

/** The physical floor of a run: spawn `file` with only `env`, output ignored, and wait for it to exit. */
export function bareSpawn(file: string, args: readonly string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
}
