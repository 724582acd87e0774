/**
 * The shared corpus of real public skills (see services.ts for where it is looked for). Tests that
 * read it run under `describe.runIf(hasCorpus)`: a fresh clone without it skips them, with one line
 * from the global setup, and CI (CI=true) fails instead of skipping.
 */
export { corpusRoot, hasCorpus } from './services.js';
