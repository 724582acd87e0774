import { type ConfigProblem, SkillboxConfigError } from '../config/config-error.js';
import { OptionProblems } from '../config/option-problems.js';
import { describeValue } from '../config/validate-options.js';
import { addDeniedFileNamesProblems } from './denied-file-names-check.js';
import type { FsSkillRepositoryOptions } from './fs-skill-repository-options.js';
import { addUrlRootOptionsProblems } from './url-root-options-check.js';

/*
 * The one check of `createFsSkillRepository`'s options, written out rather than a zod schema: a
 * cold listing (the CLI's `list`, a server's first catalog) should not load zod, which with the
 * schemas built on it was half of what importing the repository put on the heap, and some ninety
 * modules. `deniedFileNames` is checked as `createBundledFileRule` checks it (denied-file-names-check.ts),
 * `urlRoots` as `resolveUrlRoot` checks its options (url-root-options-check.ts). The messages are the shared option schemas' wording
 * (config/option-schemas.ts), so a problem reads the same whichever factory reports it.
 */

const folderPathProblem = 'must be a non-empty folder path';
const countOptions = [
  'maxDepth',
  'maxEntries',
  'maxFilesPerSkill',
  'maxSkillFileBytes',
  'maxReadableFileBytes',
] as const;

const isFolderPath = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';
const isRecord = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Throws SkillboxConfigError for options `createFsSkillRepository` cannot work with, naming every
 * wrong option in the order FsSkillRepositoryOptions lists them. Each option is read as a property
 * (an inherited one counts), and an absent or undefined option is left to its default.
 */
export async function checkFsSkillRepositoryOptions(options: FsSkillRepositoryOptions): Promise<void> {
  const problems = new OptionProblems('createFsSkillRepository');
  const refuse = (option: string, problem: string, value: unknown): void =>
    problems.add(option, `${problem}; got ${describeValue(value)}`);
  if (!isRecord(options)) {
    refuse('options', 'must be an object', options);
    problems.throwIfAny();
  }
  const record = options as Record<string, unknown>;
  const given = (option: string): boolean => record[option] !== undefined;

  const { roots } = record;
  if (given('roots')) {
    if (!Array.isArray(roots)) refuse('roots', 'must be an array of folder paths', roots);
    // An index loop reads holes as undefined, which is no folder path.
    else
      for (let index = 0; index < roots.length; index += 1)
        if (!isFolderPath(roots[index])) refuse(`roots[${index}]`, folderPathProblem, roots[index]);
  }
  if (given('cwd') && !isFolderPath(record.cwd)) refuse('cwd', folderPathProblem, record.cwd);
  if (given('env') && !isRecord(record.env)) refuse('env', 'must be an object of environment variables', record.env);
  if (given('home') && !isFolderPath(record.home)) refuse('home', folderPathProblem, record.home);
  checkSwitch(record, 'strict', refuse);
  for (const option of countOptions) {
    const value = record[option];
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 1))
      refuse(option, 'must be a positive integer', value);
  }
  if (given('deniedFileNames')) addDeniedFileNamesProblems(problems, 'deniedFileNames', record.deniedFileNames);
  checkSwitch(record, 'nested', refuse);
  checkSwitch(record, 'locked', refuse);
  if (given('urlRoots')) addUrlRootOptionsProblems(problems, 'urlRoots', record.urlRoots);
  if (given('onWarning') && typeof record.onWarning !== 'function')
    refuse('onWarning', 'must be a function (warning) => void', record.onWarning);
  problems.throwIfAny();
}

function checkSwitch(
  record: Record<string, unknown>,
  option: string,
  refuse: (option: string, problem: string, value: unknown) => void,
): void {
  const value = record[option];
  if (value !== undefined && typeof value !== 'boolean') refuse(option, 'must be true or false', value);
}

/**
 * Throws SkillboxConfigError for wrong arguments of `FsSkillRepository.watch`. Written out rather
 * than a schema: watch() is synchronous, so a schema could not be loaded when needed, and four
 * arguments do not justify loading zod with every repository.
 */
export function checkWatchArguments(listener: unknown, options: Record<string, unknown>): void {
  const problems: ConfigProblem[] = [];
  const expect = (option: string, valid: boolean, problem: string, value: unknown): void => {
    if (!valid) problems.push({ option, problem: `${problem}; got ${describeValue(value)}` });
  };
  expect('listener', typeof listener === 'function', 'must be a function (event) => void', listener);
  const { debounceMs, onError, files } = options;
  if (debounceMs !== undefined)
    expect(
      'debounceMs',
      typeof debounceMs === 'number' && Number.isFinite(debounceMs) && debounceMs >= 0,
      'must be a non-negative number of milliseconds',
      debounceMs,
    );
  if (onError !== undefined)
    expect('onError', typeof onError === 'function', 'must be a function (error) => void', onError);
  if (files !== undefined) expect('files', typeof files === 'boolean', 'must be true or false', files);
  if (problems.length > 0) throw new SkillboxConfigError('FsSkillRepository.watch', problems);
}
