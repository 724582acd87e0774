import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

/**
 * The shared corpus of real public skills. It lives beside the repository (`../shared/corpus`),
 * in a session's checkout and in CI's clone alike; SKILLBOX_CORPUS overrides it. A missing
 * corpus fails loudly: silently skipping would turn the corpus tests into tests that cannot fail.
 */
export const corpusRoot: string = resolve(
  process.env['SKILLBOX_CORPUS'] ?? fileURLToPath(new URL('../../../shared/corpus', import.meta.url)),
);

if (!existsSync(corpusRoot)) {
  throw new Error(`the skill corpus is not at ${corpusRoot}: put shared/ beside the repository or set SKILLBOX_CORPUS`);
}
