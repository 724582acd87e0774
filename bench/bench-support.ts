// Helpers the benchmarks share. Figures only: nothing here fails on a time.
import { performance } from 'node:perf_hooks';

/** The middle value (the upper middle for an even count); robust to the odd slow run on a shared machine. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Median wall time of `runs` calls of `task`, after `warmup` calls that are not counted. */
export async function medianTime(task: () => Promise<unknown>, runs: number, warmup = 1): Promise<number> {
  for (let index = 0; index < warmup; index += 1) await task();
  const times: number[] = [];
  for (let index = 0; index < runs; index += 1) {
    const started = performance.now();
    await task();
    times.push(performance.now() - started);
  }
  return median(times);
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
