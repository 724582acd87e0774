// Output glob matching: skillbox's matcher against picomatch (the regex approach the issue
// suggested), on an everyday pattern and on the many-star pattern of issue 8, for growing name
// lengths. picomatch is stopped at the first length where one match takes over a second: its time
// grows like the name length to the power of the star count. Figures only; nothing fails on a number.
import { performance } from 'node:perf_hooks';
import picomatch from 'picomatch';
import { compileGlob } from '../src/workspace/outputs/glob-pattern.js';

const evil = 'out/*a*a*a*a*a*a*a*a*a*b';

function timeOne(match: (name: string) => boolean, name: string, repeat: number): number {
  const started = performance.now();
  for (let index = 0; index < repeat; index += 1) match(name);
  return (performance.now() - started) / repeat;
}

export async function run(): Promise<void> {
  const everyday = compileGlob('out/**/*.{png,txt}');
  const everydayRegex = picomatch('out/**/*.{png,txt}', { dot: true });
  const name = 'out/charts/2024/quarterly-report-final.txt';
  console.log(
    `everyday pattern, ${name}: skillbox ${(timeOne((n) => everyday.matches(n), name, 100_000) * 1000).toFixed(2)} µs, picomatch ${(timeOne(everydayRegex, name, 100_000) * 1000).toFixed(2)} µs per match`,
  );

  const ours = compileGlob(evil);
  const theirs = picomatch(evil, { dot: true });
  let picomatchStopped = false;
  console.log(`\n${evil} against out/aaa… (no match), ms per match:`);
  console.log('name length | skillbox | picomatch');
  for (const length of [10, 20, 25, 30, 35, 40, 255]) {
    const candidate = `out/${'a'.repeat(length)}`;
    const skillbox = timeOne((n) => ours.matches(n), candidate, 200);
    let reference = 'not run (slower than 100 ms at a shorter name)';
    if (!picomatchStopped) {
      const time = timeOne(theirs, candidate, 1);
      reference = time.toFixed(3);
      // Backtracking grows about 4x per 5 letters, so anything near 100 ms here means hours at 255
      // letters: at 1 s the guard once let a 901 ms row through and the 255-letter case never ended.
      if (time > 100) picomatchStopped = true;
    }
    console.log(`${String(length).padStart(11)} | ${skillbox.toFixed(4).padStart(8)} | ${reference}`);
  }
}
