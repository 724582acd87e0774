import { describe, expect, it } from 'vitest';
import { isSkillboxError } from '../errors.js';
import { createFsSkillRepository } from '../repository/fs-skill-repository.js';
import { SkillboxConfigError } from './config-error.js';

async function rejection(promise: Promise<unknown>): Promise<SkillboxConfigError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SkillboxConfigError);
  return error as SkillboxConfigError;
}

describe('SkillboxConfigError', () => {
  it('names the component, the option and the problem of a single mistake', async () => {
    const error = await rejection(createFsSkillRepository({ roots: [], maxSkillFileBytes: 0 }));
    expect(isSkillboxError(error, 'CONFIG_INVALID')).toBe(true);
    expect(error.component).toBe('createFsSkillRepository');
    expect(error.option).toBe('maxSkillFileBytes');
    expect(error.problem).toBe('must be a positive integer; got 0');
    expect(error.message).toBe('createFsSkillRepository: option "maxSkillFileBytes" must be a positive integer; got 0');
  });

  it('reports every wrong option at once, nested ones by their dotted path', async () => {
    const error = await rejection(
      createFsSkillRepository({
        roots: ['skills', ''],
        maxDepth: 1.5,
        deniedFileNames: ['a/b'],
        urlRoots: { timeoutMs: -1, archiveLimits: { maxEntries: 0 } },
      }),
    );
    expect(error.problems).toEqual([
      { option: 'roots[1]', problem: 'must be a non-empty folder path; got ""' },
      { option: 'maxDepth', problem: 'must be a positive integer; got 1.5' },
      {
        option: 'deniedFileNames[0]',
        problem: 'is matched against one file or folder name and cannot hold a separator; got "a/b"',
      },
      { option: 'urlRoots.timeoutMs', problem: 'must be a positive integer; got -1' },
      { option: 'urlRoots.archiveLimits.maxEntries', problem: 'must be a positive integer; got 0' },
    ]);
    expect(error.option).toBe('roots[1]');
    expect(error.message).toBe(
      [
        'createFsSkillRepository: 5 invalid options:',
        '  - "roots[1]" must be a non-empty folder path; got ""',
        '  - "maxDepth" must be a positive integer; got 1.5',
        '  - "deniedFileNames[0]" is matched against one file or folder name and cannot hold a separator; got "a/b"',
        '  - "urlRoots.timeoutMs" must be a positive integer; got -1',
        '  - "urlRoots.archiveLimits.maxEntries" must be a positive integer; got 0',
      ].join('\n'),
    );
  });

  it('names the options object itself when it is not an object', async () => {
    const error = await rejection(createFsSkillRepository('skills' as never));
    expect(error.option).toBe('options');
    expect(error.message).toBe('createFsSkillRepository: option "options" must be an object; got "skills"');
  });

  it('shows objects by their kind, never their contents', async () => {
    const error = await rejection(createFsSkillRepository({ roots: [], home: { secret: 'x' } as never }));
    expect(error.message).toBe('createFsSkillRepository: option "home" must be a non-empty folder path; got an object');
  });
});
