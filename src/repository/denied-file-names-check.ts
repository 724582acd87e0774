import type { OptionProblems } from '../config/option-problems.js';
import { describeValue } from '../config/validate-options.js';

// The check of a list of denied file name patterns, for `createBundledFileRule` and the
// repository's `deniedFileNames`. Written out rather than a zod schema: both are reached from the
// root entry and run when a repository is created, where zod should not load (OptionProblems).

const patternProblem = 'must be a non-empty file name pattern';

/**
 * Adds to `problems` what is wrong with `value` as `option`'s denied-name patterns: each is matched
 * against one file or folder name, so it must be a non-empty string without a path separator.
 */
export function addDeniedFileNamesProblems(problems: OptionProblems, option: string, value: unknown): void {
  if (!Array.isArray(value)) {
    problems.add(option, `must be an array of file name patterns; got ${describeValue(value)}`);
    return;
  }
  // An index loop reads holes as undefined, which is no pattern.
  for (let index = 0; index < value.length; index += 1) {
    const pattern: unknown = value[index];
    const problem =
      typeof pattern !== 'string' || pattern.trim() === ''
        ? patternProblem
        : pattern.includes('/') || pattern.includes('\\')
          ? 'is matched against one file or folder name and cannot hold a separator'
          : undefined;
    if (problem !== undefined) problems.add(`${option}[${index}]`, `${problem}; got ${describeValue(pattern)}`);
  }
}
