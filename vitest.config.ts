import { defineConfig } from 'vitest/config';
import { matrixAliases } from './.ci/matrix-aliases.js';

export default defineConfig({
  resolve: {
    // A cell of the .ci/matrix.sh test matrix swaps packages (ai 6, a better-sqlite3 built for another Node) without
    // touching node_modules.
    alias: matrixAliases(process.env.SKILLBOX_MATRIX_MODULES),
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Sandbox and database tests spawn real processes; two cores are shared by all workers.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one worker on a 2-core machine, where the
    // suite mostly waits on the processes it starts (sandboxes, servers, databases). Three workers
    // took the whole suite from 507 s to 414 s on 2 cores (CI=true, 2026-12-06), every test passing.
    maxWorkers: 3,
    // Says once which services are absent (and fails under CI=true); see test/support/services.ts.
    globalSetup: ['test/support/global-setup.ts'],
  },
});
