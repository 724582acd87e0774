import type { z } from 'zod';
import { type ConfigErrorClass, type ConfigProblem, SkillboxConfigError } from './config-error.js';

/**
 * Checks `options` against `schema` and throws one SkillboxConfigError naming `component` and every
 * wrong option. The options are only checked, never replaced by zod's parsed copy: callers keep the
 * object they were given (with its functions, class instances and extra keys) exactly as before.
 *
 * The schema carries zod's runtime with it, so this file imports only zod's types: a module that
 * uses the config error without a schema does not load zod.
 */
export function validateOptions(
  component: string,
  schema: z.ZodType,
  options: unknown,
  errorClass: ConfigErrorClass = SkillboxConfigError,
): void {
  schemaRuns += 1;
  // jitless: zod compiles an object schema into a function on its first parse, which pays off over
  // many parses; options are checked once per factory call, and the compile was most of the check.
  const result = schema.safeParse(options, { reportInput: true, jitless: true });
  if (result.success) return;
  throw new errorClass(component, describeIssues(result.error.issues));
}

let schemaRuns = 0;

/**
 * How many option schemas have run in this process: a public factory checks its options once and
 * hands the parsed configuration to the factories it builds on, and tests read this to keep it so.
 */
export function optionSchemaRuns(): number {
  return schemaRuns;
}

/** Marks a cross-option issue whose input (the whole options object) is not worth printing. */
export const omitInput = { omitInput: true } as const;

/** One problem per option: zod can report several checks of one value (not an integer and not positive). */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    const option = optionPath(issue.path);
    if (seen.has(option)) continue;
    seen.add(option);
    problems.push({ option, problem: problemText(issue) });
  }
  return problems;
}

function optionPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text === '' ? 'options' : text;
}

function problemText(issue: z.core.$ZodIssue): string {
  const showInput =
    Object.hasOwn(issue, 'input') &&
    (issue as { params?: { omitInput?: boolean } }).params?.omitInput !== true &&
    !issue.message.includes('; got ');
  return showInput ? `${issue.message}; got ${describeValue(issue.input)}` : issue.message;
}

/** A short, safe rendering of a wrong value: literals as written, objects by their kind only. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object' && value !== null) {
    const name = Object.getPrototypeOf(value)?.constructor?.name;
    return typeof name === 'string' && name !== '' && name !== 'Object' ? `a ${name}` : 'an object';
  }
  return String(value);
}
