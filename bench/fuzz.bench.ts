// Fuzzing at volume: a million random inputs in all (20,000 with --quick; SKILLBOX_FUZZ_INPUTS to change it) over the
// SKILL.md parser, bundled and archive path normalisation and the tar, tar.gz and zip readers, with
// the properties of test/security/fuzz-targets.ts (only documented errors, nothing outside the root,
// no input over maxInputMs). It reports inputs, time and the slowest input per target, and exits
// non-zero with the counterexample and the seed when a property breaks: that is a bug, not a figure.
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { fuzzTargets, maxInputMs } from '../test/security/fuzz-targets.js';
import { quick } from './bench-support.js';

export async function run(): Promise<void> {
  // --quick is a check that every target still runs, not a fuzzing campaign: a million inputs take minutes.
  const total = Number(process.env.SKILLBOX_FUZZ_INPUTS ?? (quick ? 20_000 : 1_000_000));
  const seed = Number(process.env.SKILLBOX_FUZZ_SEED ?? Date.now() % 2 ** 31);
  console.log(
    `${total} inputs, seed ${seed} (SKILLBOX_FUZZ_SEED=${seed} repeats this run); an input over ${maxInputMs} ms counts as a hang`,
  );
  console.log('target | inputs | seconds | inputs/s | slowest input');
  let failed = false;
  for (const { target, share } of fuzzTargets) {
    const numRuns = Math.round(total * share);
    let slowest = 0;
    const started = performance.now();
    const result = await fc.check(
      fc.asyncProperty(target.input, async (input) => {
        const inputStarted = performance.now();
        await target.check(input);
        slowest = Math.max(slowest, performance.now() - inputStarted);
      }),
      { numRuns, seed },
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `${target.name} | ${result.numRuns} | ${seconds.toFixed(1)} | ${(result.numRuns / seconds).toFixed(0)} | ${slowest.toFixed(1)} ms`,
    );
    if (result.failed) {
      failed = true;
      console.log(
        `  FAILED after ${result.numRuns} inputs: ${String((result.errorInstance as Error | undefined)?.message ?? result.errorInstance)}`,
      );
      console.log(`  counterexample: ${JSON.stringify(result.counterexample)?.slice(0, 1000)}`);
    }
  }
  if (failed) throw new Error('fuzzing found inputs that break a property (see above)');
  console.log('no crash, no undocumented error, no path outside the root, no hang');
}
