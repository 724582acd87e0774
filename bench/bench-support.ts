// Helpers the benchmarks share. Figures only: nothing here fails on a time.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The checkout being measured. A child process runs from a transpiled copy of bench/ and src/ (see
 * `measureInFreshProcess`), so its own location says nothing about the checkout: its parent tells it.
 */
const repositoryRoot = process.env.SKILLBOX_BENCH_REPOSITORY ?? resolve(dirname(fileURLToPath(import.meta.url)), '..');

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
 * `pauseMs` idles before each call, untimed, for work whose cost depends on the quiet spell before
 * it (the kernel's cgroup moves: runtime.bench.ts).
 */
export async function interleavedTimes<Name extends string>(
  tasks: Record<Name, () => Promise<unknown> | unknown>,
  runs: number,
  warmup = 1,
  pauseMs = 0,
): Promise<Record<Name, number[]>> {
  const names = Object.keys(tasks) as Name[];
  const times = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Name, number[]>;
  for (let round = 0; round < warmup + runs; round += 1) {
    for (let turn = 0; turn < names.length; turn += 1) {
      const name = names[(round + turn) % names.length]!;
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
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
  buildBaselinePrelude(commit, target);
  return join(target, 'src');
}

/**
 * The baseline's compiled sandbox prelude, built from its own native/ once: its SandboxRuntime
 * finds the program beside its src/ and would otherwise time the shell preludes and bubblewrap's
 * cgroup hand-shake against this checkout's compiled prelude. Left out, as in a checkout, where
 * the commit has no native/ or no C compiler is present.
 */
function buildBaselinePrelude(commit: string, target: string): void {
  const marker = join(target, 'native', '.extracted');
  if (existsSync(marker)) return;
  const listed = execFileSync('git', ['ls-tree', '--name-only', commit, 'native/'], {
    cwd: repositoryRoot,
    encoding: 'utf8',
  });
  if (listed.trim() !== '') {
    const archive = execFileSync('git', ['archive', '--format=tar', commit, 'native'], { cwd: repositoryRoot });
    execFileSync('tar', ['-x', '-C', target], { input: archive });
    const script = join(target, 'native', 'build-prelude.mjs');
    if (existsSync(script)) execFileSync(process.execPath, [script], { stdio: 'ignore' });
  }
  mkdirSync(dirname(marker), { recursive: true });
  writeFileSync(marker, '');
}

/** The baseline's short commit, for labels. */
export function baselineLabel(): string | undefined {
  const source = baselineSource();
  return source === undefined ? undefined : `baseline ${dirname(source).split('/').pop()!.slice(0, 7)}`;
}

/** Imports `relativePath` (e.g. `repository/fs-skill-repository.ts`) from the baseline's src/. */
export async function importBaseline<Module>(relativePath: string): Promise<Module | undefined> {
  const transpiledBaseline = process.env.SKILLBOX_BENCH_BASELINE_JS;
  if (transpiledBaseline !== undefined)
    return (await import(pathToFileURL(join(transpiledBaseline, relativePath.replace(/\.ts$/, '.js'))).href)) as Module;
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

/** The TypeScript files under `folder` that run (tests and declarations left out). */
function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /(?<!\.test|\.d)\.ts$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

interface TranspiledTree {
  root: string;
  /** The baseline's src/ in the same tree, when a benchmark was given `--baseline`. */
  baseline?: string;
}

let transpiledTree: TranspiledTree | undefined;

/** Trees left by runs that were killed before they could remove their own. */
function removeAbandonedTrees(cache: string): void {
  for (const name of readdirSync(cache)) {
    const pid = /^skillbox-bench-js-(\d+)$/.exec(name)?.[1];
    if (pid === undefined) continue;
    try {
      process.kill(Number(pid), 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH')
        rmSync(join(cache, name), { recursive: true, force: true });
    }
  }
}

/**
 * bench/ and src/ (and the baseline's src/) as JavaScript, one file per file and nothing bundled,
 * written once per run under node_modules/.cache (where the packages they import resolve) and
 * removed when the run ends. A child started through tsx spent about 0.3 s of its start-up loading
 * the loader (Node 20 runs module hooks on a thread of their own) and ran the code being timed
 * under those hooks; a quick run starts more than 30 children. Only what the children import is
 * there: a file that src/ finds relative to its own location (native/build/, package.json, a
 * .ts helper it spawns) is missing from the copy, so a child must not use such code.
 */
function transpiled(): TranspiledTree {
  if (transpiledTree !== undefined) return transpiledTree;
  // Loaded here, not on import: every child imports this file, and esbuild has no place in its heap.
  const { buildSync } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const cache = join(repositoryRoot, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  removeAbandonedTrees(cache);
  const root = join(cache, `skillbox-bench-js-${process.pid}`);
  rmSync(root, { recursive: true, force: true });
  process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  const options = { format: 'esm', platform: 'node', target: 'node20', logLevel: 'error' } as const;
  buildSync({
    ...options,
    entryPoints: [...sourceFiles(join(repositoryRoot, 'bench')), ...sourceFiles(join(repositoryRoot, 'src'))],
    outdir: root,
    outbase: repositoryRoot,
  });
  // Outside a package of its own, Node would take the .js files for CommonJS.
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n');
  const baselineSourceFolder = baselineSource();
  transpiledTree = { root };
  if (baselineSourceFolder !== undefined) {
    const baseline = join(root, 'baseline', 'src');
    buildSync({
      ...options,
      entryPoints: sourceFiles(baselineSourceFolder),
      outdir: baseline,
      outbase: baselineSourceFolder,
    });
    transpiledTree.baseline = baseline;
  }
  return transpiledTree;
}

/**
 * Runs `script` (a file of bench/) in a fresh Node process (so each measurement starts cold, with its
 * own heap and peak-RSS counter), passing `request` as JSON in the environment variable `variable`,
 * and returns the JSON object the child printed last. The child runs the transpiled copy of the
 * script with plain `node`, as a user's code runs. A failure comes back as a one-line `failed: …`
 * string, so one broken peer does not stop the rest of a benchmark.
 */
export function measureInFreshProcess<Result>(script: string, variable: string, request: unknown): Result | string {
  try {
    const tree = transpiled();
    const childScript = join(tree.root, relative(repositoryRoot, script)).replace(/\.ts$/, '.js');
    const output = execFileSync(
      process.execPath,
      [childScript, ...process.argv.filter((argument) => argument.startsWith('--'))],
      {
        env: {
          ...process.env,
          [variable]: JSON.stringify(request),
          SKILLBOX_BENCH_REPOSITORY: repositoryRoot,
          ...(tree.baseline === undefined ? {} : { SKILLBOX_BENCH_BASELINE_JS: tree.baseline }),
        },
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
