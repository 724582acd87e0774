import { describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../config/config-error.js';
import { FsSkillRepository } from './fs-skill-repository.js';
import { vouchForOptions } from './fs-skill-repository-options-check.js';
import { fsSkillRepositoryOptionsSchema } from './fs-skill-repository-options-schema.js';

/** Values of every kind, each tried in every option: the look must never vouch for one the schema refuses. */
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
const options = [
  'roots',
  'cwd',
  'env',
  'home',
  'strict',
  'maxDepth',
  'maxEntries',
  'maxFilesPerSkill',
  'maxSkillFileBytes',
  'maxReadableFileBytes',
  'deniedFileNames',
  'nested',
  'locked',
  'urlRoots',
];

const schemaAccepts = (candidate: unknown): boolean => fsSkillRepositoryOptionsSchema.safeParse(candidate).success;

describe('vouchForOptions', () => {
  it('vouches only for options the schema accepts, whatever each option holds', () => {
    let vouched = 0;
    for (const option of options)
      for (const value of values) {
        const candidate = { [option]: value };
        if (!vouchForOptions(candidate)) continue;
        vouched += 1;
        expect(schemaAccepts(candidate), `${option}: ${String(value)}`).toBe(true);
      }
    // And for the same values two at a time (an accepted option must not hide a refused one).
    for (const first of options)
      for (const second of options)
        for (const value of values) {
          const candidate = { [first]: value, [second]: values[(values.indexOf(value) + 7) % values.length] };
          if (vouchForOptions(candidate)) expect(schemaAccepts(candidate), JSON.stringify(candidate)).toBe(true);
        }
    expect(vouched).toBeGreaterThan(20);
  });

  it('reads options as the schema does: inherited ones count, the options object must be an object', () => {
    const inherited = Object.create({ maxDepth: 0 }) as object;
    expect(vouchForOptions(inherited)).toBe(false);
    expect(schemaAccepts(inherited)).toBe(false);
    for (const notAnObject of [null, undefined, 'roots', ['skills'], 3])
      expect(vouchForOptions(notAnObject)).toBe(false);
  });

  it('vouches for the usual options without the schema', () => {
    expect(vouchForOptions({})).toBe(true);
    expect(
      vouchForOptions({
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
      }),
    ).toBe(true);
    // Left to the schema (which says what is wrong, or that nothing is).
    expect(vouchForOptions({ deniedFileNames: ['.env'] })).toBe(false);
    expect(vouchForOptions({ urlRoots: { cacheDir: '/tmp/cache' } })).toBe(false);
  });
});

describe('FsSkillRepository options the look leaves to the schema', () => {
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
