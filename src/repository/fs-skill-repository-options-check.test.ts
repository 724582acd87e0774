import { describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../config/config-error.js';
import { FsSkillRepository } from './fs-skill-repository.js';
import { checkFsSkillRepositoryOptions } from './fs-skill-repository-options-check.js';

/** Values of every kind, each tried in every option. */
const values: unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  1,
  -1,
  1.5,
  2 ** 53,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  '',
  '   ',
  'skills',
  '/tmp/skills',
  [],
  ['skills'],
  [''],
  ['skills', ' '],
  [1],
  // A hole reads as undefined.
  // biome-ignore lint/suspicious/noSparseArray: the hole is the case under test
  [, 'skills'],
  {},
  { SKILLS_ROOT: 'x' },
  () => {},
  new Date(0),
];

/** What each option accepts, by the option's documented type. */
const kinds: Record<string, (value: unknown) => boolean> = {
  roots: (value) =>
    Array.isArray(value) && Array.from(value).every((root) => typeof root === 'string' && root.trim() !== ''),
  cwd: (value) => typeof value === 'string' && value.trim() !== '',
  env: (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  home: (value) => typeof value === 'string' && value.trim() !== '',
  strict: (value) => typeof value === 'boolean',
  maxDepth: (value) => Number.isSafeInteger(value) && (value as number) >= 1,
  maxEntries: (value) => Number.isSafeInteger(value) && (value as number) >= 1,
  maxFilesPerSkill: (value) => Number.isSafeInteger(value) && (value as number) >= 1,
  maxSkillFileBytes: (value) => Number.isSafeInteger(value) && (value as number) >= 1,
  maxReadableFileBytes: (value) => Number.isSafeInteger(value) && (value as number) >= 1,
  nested: (value) => typeof value === 'boolean',
  locked: (value) => typeof value === 'boolean',
  onWarning: (value) => typeof value === 'function',
};

async function problemsOf(options: unknown): Promise<string[]> {
  try {
    await checkFsSkillRepositoryOptions(options as never);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(SkillboxConfigError);
    return (error as SkillboxConfigError).problems.map((problem) => `${problem.option} ${problem.problem}`);
  }
}

describe('checkFsSkillRepositoryOptions', () => {
  it('accepts each option exactly when it holds its type, and names the option (or its item) otherwise', async () => {
    let refused = 0;
    for (const [option, accepts] of Object.entries(kinds))
      for (const value of values) {
        const problems = await problemsOf({ [option]: value });
        const label = `${option}: ${String(value)}`;
        if (value === undefined || accepts(value)) expect(problems, label).toEqual([]);
        else {
          refused += 1;
          expect(problems.length, label).toBeGreaterThan(0);
          for (const problem of problems) expect(problem, label).toMatch(new RegExp(`^${option}(\\[\\d+\\])? must `));
        }
      }
    expect(refused).toBeGreaterThan(200);
  });

  it('words each problem as the shared option schemas do, with the value it got', async () => {
    expect(
      await problemsOf({
        roots: ['skills', ' ', 3],
        cwd: '',
        env: [],
        home: 1,
        strict: 'yes',
        maxDepth: 0,
        maxEntries: 1.5,
        nested: null,
        onWarning: 'log',
      }),
    ).toEqual([
      'roots[1] must be a non-empty folder path; got " "',
      'roots[2] must be a non-empty folder path; got 3',
      'cwd must be a non-empty folder path; got ""',
      'env must be an object of environment variables; got an array of 0',
      'home must be a non-empty folder path; got 1',
      'strict must be true or false; got "yes"',
      'maxDepth must be a positive integer; got 0',
      'maxEntries must be a positive integer; got 1.5',
      'nested must be true or false; got null',
      'onWarning must be a function (warning) => void; got "log"',
    ]);
    expect(await problemsOf({ roots: 'skills' })).toEqual(['roots must be an array of folder paths; got "skills"']);
    expect(await problemsOf({ urlRoots: 3, deniedFileNames: 'x' })).toEqual([
      'deniedFileNames must be an array of file name patterns; got "x"',
      'urlRoots must be an object; got 3',
    ]);
    expect(await problemsOf({ urlRoots: { cacheDir: '', archiveLimits: { maxEntries: 0 } } })).toEqual([
      'urlRoots.cacheDir must be a non-empty folder path; got ""',
      'urlRoots.archiveLimits.maxEntries must be a positive integer; got 0',
    ]);
  });

  it('reads options as properties: inherited ones count, the options object must be an object', async () => {
    expect(await problemsOf(Object.create({ maxDepth: 0 }))).toEqual(['maxDepth must be a positive integer; got 0']);
    for (const notAnObject of [null, 'roots', ['skills'], 3])
      expect((await problemsOf(notAnObject))[0]).toMatch(/^options must be an object; got /);
  });

  it('accepts the usual options', async () => {
    expect(
      await problemsOf({
        roots: ['./skills', '/srv/skills'],
        cwd: '/srv/app',
        env: { SKILLS_ROOT: '/a' },
        home: '/home/me',
        strict: true,
        nested: false,
        locked: true,
        maxDepth: 4,
        maxEntries: 100_000,
        maxFilesPerSkill: 500,
        maxSkillFileBytes: 1024,
        maxReadableFileBytes: 2048,
        deniedFileNames: ['.env'],
        urlRoots: { cacheDir: '/tmp/cache' },
        onWarning: () => {},
      }),
    ).toEqual([]);
  });
});

describe('FsSkillRepository options', () => {
  it('are still refused with every problem named', async () => {
    const error = await FsSkillRepository.open({
      roots: ['skills'],
      maxDepth: 0,
      deniedFileNames: ['a/b'],
      urlRoots: { timeoutMs: -1 },
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SkillboxConfigError);
    expect((error as SkillboxConfigError).problems.map((problem) => problem.option)).toEqual([
      'maxDepth',
      'deniedFileNames[0]',
      'urlRoots.timeoutMs',
    ]);
    expect((error as Error).message).toContain('"maxDepth" must be a positive integer; got 0');
  });

  it('watch() refuses wrong arguments by name', async () => {
    const repository = await FsSkillRepository.open({ roots: [] });
    const attempt =
      (...parameters: unknown[]) =>
      () =>
        (repository.watch as (...given: unknown[]) => unknown)(...parameters);
    expect(attempt(undefined)).toThrow(
      'FsSkillRepository.watch: option "listener" must be a function (event) => void; got undefined',
    );
    expect(attempt(() => {}, { debounceMs: Number.NaN })).toThrow(
      'option "debounceMs" must be a non-negative number of milliseconds; got NaN',
    );
    const error = (() => {
      try {
        attempt('x', { onError: 1, files: 'yes' })();
      } catch (caught) {
        return caught as SkillboxConfigError;
      }
    })();
    expect(error?.problems).toEqual([
      { option: 'listener', problem: 'must be a function (event) => void; got "x"' },
      { option: 'onError', problem: 'must be a function (error) => void; got 1' },
      { option: 'files', problem: 'must be true or false; got "yes"' },
    ]);
  });
});
