import { serviceChecks } from './services.js';

/**
 * Runs once before the test files: one line per absent service naming the tests it skips and how
 * to run them, so a fresh clone passes anywhere and says what it did not test. Under CI=true an
 * absent service fails the run: CI installs them all, and a skip there would pass a broken one.
 */
export default function setup(): void {
  const absent = serviceChecks().filter((check) => !check.available);
  const missing = absent.filter((check) => check.requiredUnderCi !== false);
  if (process.env.CI === 'true' && missing.length > 0) {
    throw new Error(
      `CI=true and these test services are absent:\n${missing.map((check) => `  ${check.name}: ${check.howToRun}`).join('\n')}`,
    );
  }
  for (const check of absent) process.stderr.write(`skipping the ${check.name} tests: ${check.howToRun}\n`);
}
