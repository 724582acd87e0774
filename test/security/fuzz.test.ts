// Attack: hostile SKILL.md text, archive bytes and paths, generated at random (fast-check). A few
// hundred inputs per target here; `npm run bench -- fuzz` runs a million. See fuzz-targets.ts.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { fuzzTargets } from './fuzz-targets.js';

describe('fuzzing the parsers, archive readers and path normalisation', () => {
  for (const { target } of fuzzTargets) {
    it(`${target.name}: only documented errors, nothing outside the root, no hang`, { timeout: 60_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(target.input, (input) => target.check(input)),
        { numRuns: 300 },
      );
    });
  }
});
