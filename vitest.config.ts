import { defineConfig } from 'vitest/config';

export default defineConfig({
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
