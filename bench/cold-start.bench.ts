// A library user's cold start, through the published entry: in a fresh Node process, `await
// import('skillbox')` (the built package, dist/, reached by the package's own name as an
// application reaches it), then `createFsSkillRepository({ roots: [corpus] })`, then `list()`.
// Each round is a new process; the figure is the median of the rounds. Without `--build` the
// benchmark refuses a dist/ older than any source file, since it would time code that is not the
// checkout's. Figures only; nothing fails on a number.
//   npm run bench -- cold-start [--quick] [--build]
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusRoot, formatSpread, quick, spreadOf } from './bench-support.js';

const repositoryRoot = resolve(fileURLToPath(new URL('..', import.meta.url)));
const rounds = quick ? 5 : 15;

/** What one child process reports, in milliseconds from just before the import. */
interface ColdStart {
  importMs: number;
  openMs: number;
  listMs: number;
  skills: number;
}

// Runs inside the package folder, so `import('skillbox')` resolves through package.json's
// "exports" to dist/, as it does for an application that installed the package.
const childScript = `
const started = performance.now();
const { createFsSkillRepository } = await import('skillbox');
const imported = performance.now();
const repository = await createFsSkillRepository({ roots: [process.env.COLD_START_ROOT], onWarning: () => {} });
const opened = performance.now();
const skills = await repository.list();
const listed = performance.now();
console.log(JSON.stringify({
  importMs: imported - started,
  openMs: opened - imported,
  listMs: listed - opened,
  skills: skills.length,
}));
`;

function newestSourceChange(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
    newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** Builds dist/ with `--build`; otherwise says why a missing or stale dist/ cannot be timed. */
function distProblem(): string | undefined {
  if (process.argv.includes('--build')) {
    execFileSync('npm', ['run', 'build'], { cwd: repositoryRoot, stdio: 'ignore' });
    return undefined;
  }
  let built: number;
  try {
    built = statSync(join(repositoryRoot, 'dist', 'index.js')).mtimeMs;
  } catch {
    return 'dist/ is not built: run `npm run build` (or pass --build)';
  }
  if (newestSourceChange(join(repositoryRoot, 'src')) > built)
    return 'dist/ is older than src/: run `npm run build` (or pass --build) so the figure is this checkout';
  return undefined;
}

function coldStart(root: string): ColdStart {
  const output = execFileSync(process.execPath, ['--input-type=module', '--eval', childScript], {
    cwd: repositoryRoot,
    env: { ...process.env, COLD_START_ROOT: root },
    encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').at(-1) as string) as ColdStart;
}

export async function run(): Promise<void> {
  const root = corpusRoot();
  if (root === undefined) {
    console.log('cold start: no corpus (set SKILLBOX_CORPUS); skipped');
    return;
  }
  const problem = distProblem();
  if (problem !== undefined) {
    console.log(`cold start: ${problem}; skipped`);
    return;
  }
  const samples: ColdStart[] = [];
  for (let round = 0; round < rounds; round += 1) samples.push(coldStart(root));
  const spread = (pick: (sample: ColdStart) => number) => formatSpread(spreadOf(samples.map(pick)), 0, ' ms');
  console.log(`cold start through import('skillbox'), ${samples[0]?.skills} corpus skills, ${rounds} processes:`);
  console.log(`  import('skillbox')          ${spread((sample) => sample.importMs)}`);
  console.log(`  createFsSkillRepository     ${spread((sample) => sample.openMs)}`);
  console.log(`  list()                      ${spread((sample) => sample.listMs)}`);
  console.log(`  total                       ${spread((sample) => sample.importMs + sample.openMs + sample.listMs)}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
