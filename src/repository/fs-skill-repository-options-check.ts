import { type ConfigProblem, SkillboxConfigError } from '../config/config-error.js';
import { describeValue, validateOptions } from '../config/validate-options.js';
import type { FsSkillRepositoryOptions } from './fs-skill-repository.js';

/*
 * Why a look of our own in front of the zod schema: zod and the schemas built with it were half of
 * what importing the repository put on the heap (4 of 8.5 MB), and a fresh process that imported
 * them collected that garbage in the middle of its first listing (a mark-compact of 6-7 ms in a
 * cold corpus listing of about 70). The look below vouches only for options it can judge exactly;
 * anything else (a pattern list, URL root options, a value of the wrong type) goes to the schema,
 * loaded then, which stays the one authority on what is valid and on every message.
 * fs-skill-repository-options-check.test.ts holds the look to that: whatever it vouches for, the
 * schema accepts.
 */

const pathOptions = ['cwd', 'home'] as const;
const switchOptions = ['strict', 'nested', 'locked'] as const;
const countOptions = [
  'maxDepth',
  'maxEntries',
  'maxFilesPerSkill',
  'maxSkillFileBytes',
  'maxReadableFileBytes',
] as const;
/** Options the look leaves to the schema whenever they are given. */
const schemaOnlyOptions = ['deniedFileNames', 'urlRoots'] as const;

const isPath = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';

/**
 * Whether `options` is certainly valid for `createFsSkillRepository`, judged without zod: every
 * option the schema knows is read as the schema reads it (a property read, inherited ones
 * included) and is either absent or of the plain kind the schema accepts. False means "ask the
 * schema", not "invalid".
 */
export function vouchForOptions(options: unknown): boolean {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return false;
  const record = options as Record<string, unknown>;
  for (const option of schemaOnlyOptions) if (record[option] !== undefined) return false;
  const { roots, env } = record;
  if (roots !== undefined) {
    if (!Array.isArray(roots)) return false;
    // An index loop reads holes as undefined, as the schema does.
    for (let index = 0; index < roots.length; index += 1) if (!isPath(roots[index])) return false;
  }
  if (env !== undefined && (typeof env !== 'object' || env === null || Array.isArray(env))) return false;
  if (record.onWarning !== undefined && typeof record.onWarning !== 'function') return false;
  for (const option of pathOptions) if (record[option] !== undefined && !isPath(record[option])) return false;
  for (const option of switchOptions)
    if (record[option] !== undefined && typeof record[option] !== 'boolean') return false;
  for (const option of countOptions) {
    const value = record[option];
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 1)) return false;
  }
  return true;
}

/**
 * Throws SkillboxConfigError for options `createFsSkillRepository` cannot work with, naming every
 * wrong option. Usual options are vouched for without loading the schema.
 */
export async function checkFsSkillRepositoryOptions(options: FsSkillRepositoryOptions): Promise<void> {
  if (vouchForOptions(options)) return;
  const { fsSkillRepositoryOptionsSchema } = await import('./fs-skill-repository-options-schema.js');
  validateOptions('createFsSkillRepository', fsSkillRepositoryOptionsSchema, options);
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
