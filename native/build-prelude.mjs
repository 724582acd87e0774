// Builds native/sandbox-prelude.c into native/build/sandbox-prelude-linux-<arch> when a C compiler
// is present; without one it says so and succeeds, and SandboxRuntime keeps its shell preludes
// (src/runtime/sandbox-prelude.ts). musl first: a static musl program starts as fast as an empty
// one, a static glibc one spends milliseconds in libc's start-up on every run.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const folder = dirname(fileURLToPath(import.meta.url));
const source = join(folder, 'sandbox-prelude.c');
const output = join(folder, 'build', `sandbox-prelude-${process.platform}-${process.arch}`);

function compilerWorks(compiler) {
  return spawnSync(compiler, ['--version'], { stdio: 'ignore' }).status === 0;
}

if (process.platform !== 'linux') {
  console.log(`sandbox prelude: not built (the sandbox needs Linux, this is ${process.platform})`);
  process.exit(0);
}
const compiler = ['musl-gcc', process.env.CC ?? 'cc', 'gcc'].find(compilerWorks);
if (compiler === undefined) {
  console.log('sandbox prelude: not built (no C compiler); sandboxed runs use the shell prelude');
  process.exit(0);
}
mkdirSync(dirname(output), { recursive: true });
// Built beside the target and renamed over it: a runtime starting meanwhile never sees half a file.
const partial = `${output}.partial-${process.pid}`;
try {
  execFileSync(compiler, ['-static', '-Os', '-s', '-Wall', '-Wextra', '-o', partial, source], { stdio: 'inherit' });
  renameSync(partial, output);
  console.log(`sandbox prelude: built ${output} with ${compiler}`);
} catch (error) {
  rmSync(partial, { force: true });
  // A compiler without static libraries (no libc6-dev / musl-dev) is not a broken build.
  console.log(`sandbox prelude: not built (${compiler} failed: ${error.message.split('\n')[0]})`);
}
