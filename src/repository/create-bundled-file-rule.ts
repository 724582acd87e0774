import { OptionProblems } from '../config/option-problems.js';
import { type BundledFileRule, bundledFileRuleOf, defaultDeniedFileNames } from './bundled-file-rule.js';
import { addDeniedFileNamesProblems } from './denied-file-names-check.js';

/**
 * The rule for a list of denied-name patterns (default: `defaultDeniedFileNames`; `[]` denies
 * nothing beyond the skipped folders). `option` and `component` name the option and its factory in
 * the error for a bad pattern.
 */
export function createBundledFileRule(
  deniedFileNames: readonly string[] = defaultDeniedFileNames,
  option = 'deniedFileNames',
  component = 'createBundledFileRule',
): BundledFileRule {
  if (deniedFileNames !== defaultDeniedFileNames) {
    const problems = new OptionProblems(component);
    addDeniedFileNamesProblems(problems, option, deniedFileNames);
    problems.throwIfAny();
  }
  return bundledFileRuleOf(deniedFileNames);
}
