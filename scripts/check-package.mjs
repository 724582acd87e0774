// Lints what `npm publish` would upload: publint (package.json fields against the files) and
// @arethetypeswrong/cli (types under node10, node16 and bundler resolution). The tarball is packed
// once, without the prepare script (dist/ must be built already), instead of once per tool with
// a rebuild each time: about 5 s instead of 90.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const folder = mkdtempSync(join(tmpdir(), 'skillbox-check-package-'));
const run = (command, args, options = {}) => execFileSync(command, args, { stdio: 'inherit', ...options });
try {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', folder], { encoding: 'utf8' }),
  );
  const tarball = join(folder, packed.filename);
  run('tar', ['-xzf', tarball, '-C', folder]);
  run('npx', ['--no-install', 'publint', join(folder, 'package'), '--pack', 'false', '--strict']);
  // ESM only: a CommonJS `require` of it needs Node 22's require(esm), which attw reports as a
  // problem of every ESM-only package (docs/README.md, "Installing").
  run('npx', ['--no-install', 'attw', tarball, '--ignore-rules', 'cjs-resolves-to-esm']);
} finally {
  rmSync(folder, { recursive: true, force: true });
}
