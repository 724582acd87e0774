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
    // Says once which services are absent (and fails under CI=true); see test/support/services.ts.
    globalSetup: ['test/support/global-setup.ts'],
  },
});
