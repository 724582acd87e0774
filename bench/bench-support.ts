// Helpers the benchmarks share. Figures only: nothing here fails on a time.
import { execFileSync, spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/** The middle value (the upper middle for an even count); robust to the odd slow run on a shared machine. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * Median wall time of each task, the tasks taking turns call by call: on a machine shared with
 * other work, load that comes and goes then weighs on every task alike, so their ratios hold even
 * when the absolute figures drift.
 */
export async function interleavedMedians<Name extends string>(tasks: Record<Name, () => Promise<unknown>>, runs: number, warmup = 1): Promise<Record<Name, number>> {
  const names = Object.keys(tasks) as Name[];
  const times = new Map<Name, number[]>(names.map((name) => [name, []]));
  for (let round = 0; round < warmup + runs; round += 1) {
    for (const name of names) {
      const started = performance.now();
      await tasks[name]();
      if (round >= warmup) times.get(name)?.push(performance.now() - started);
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(times.get(name) ?? [])])) as Record<Name, number>;
}

/**
 * Runs `script` in a fresh Node process (so each measurement starts cold, with its own heap and
 * peak-RSS counter), passing `request` as JSON in the environment variable `variable`, and returns
 * the JSON object the child printed last. A failure comes back as a one-line `failed: …` string,
 * so one broken peer does not stop the rest of a benchmark.
 */
export function measureInFreshProcess<Result>(script: string, variable: string, request: unknown): Result | string {
  try {
    const output = execFileSync(process.execPath, ['--import', 'tsx', script], {
      env: { ...process.env, [variable]: JSON.stringify(request) },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 16 * 1024 * 1024,
    });
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
