import { z } from 'zod';
import { validateOptions } from '../config/validate-options.js';
import { type BundledFileRule, bundledFileRuleOf, defaultDeniedFileNames } from './bundled-file-rule.js';
import { deniedFileNamesSchema } from './denied-file-names-schema.js';

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
  if (deniedFileNames !== defaultDeniedFileNames)
    validateOptions(component, z.object({ [option]: deniedFileNamesSchema }), { [option]: deniedFileNames });
  return bundledFileRuleOf(deniedFileNames);
}
