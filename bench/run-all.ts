// Runs every bench/*.bench.ts in turn (or those named on the command line) and prints their
// figures. Benchmarks never fail on a time; they exit non-zero only when they cannot run.
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';

const here = fileURLToPath(new URL('.', import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => wanted.length === 0 || wanted.some((name) => file.includes(name)))
  .sort();

for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const module = (await import(pathToFileURL(join(here, file)).href)) as { run?: () => Promise<void> };
  if (typeof module.run !== 'function') throw new Error(`${file} does not export run()`);
  await module.run();
}
