import { execFileSync } from 'node:child_process';
import { open } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../config/config-error.js';
import { SkillFileNotFoundError, SkillFileReadError } from './errors.js';
import { FsSkillRepository } from './fs-skill-repository.js';
import { createSkillTree, type SkillTree, skillMarkdown } from './testing/skill-tree.js';

const trees: SkillTree[] = [];
afterEach(async () => {
  await Promise.all(trees.splice(0).map((created) => created.remove()));
});

async function skill(entries: Parameters<typeof createSkillTree>[0] = {}): Promise<SkillTree> {
  const tree = await createSkillTree({ 'files/SKILL.md': skillMarkdown('files', 'Bundled files.'), ...entries });
  trees.push(tree);
  return tree;
}

async function readError(promise: Promise<unknown>): Promise<SkillFileReadError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SkillFileReadError);
  return error as SkillFileReadError;
}

describe('FsSkillRepository.readFile errors other than a missing file', () => {
  it('refuses a file over maxReadableFileBytes, naming its size and the limit, before reading it', async () => {
    const tree = await skill({ 'files/data.csv': 'x'.repeat(101), 'files/small.csv': 'x'.repeat(100) });
    const repository = await FsSkillRepository.open({ roots: [tree.dir], maxReadableFileBytes: 100 });
    expect((await repository.readFile('files', 'small.csv')).length).toBe(100);
    const error = await readError(repository.readFile('files', 'data.csv'));
    expect(error).toMatchObject({ problem: 'too-large', size: 101, limit: 100, skill: 'files', path: 'data.csv' });
    expect(error.message).toBe(
      'cannot read file "data.csv" of skill "files": the file is 101 bytes, over the 100-byte limit (maxReadableFileBytes)',
    );
  });

  it('refuses a 3 GB sparse file with the default 32 MiB limit, and past 2 GiB says the file is too large', async () => {
    const tree = await skill({ 'files/huge.bin': '' });
    const handle = await open(tree.path('files/huge.bin'), 'r+');
    await handle.truncate(3 * 1024 ** 3);
    await handle.close();
    const repository = await FsSkillRepository.open({ roots: [tree.dir] });
    expect(await readError(repository.readFile('files', 'huge.bin'))).toMatchObject({
      problem: 'too-large',
      size: 3 * 1024 ** 3,
      limit: 32 * 1024 * 1024,
    });
    // A limit above what Node can read into one buffer: the read itself fails, and that is not "not found" either.
    const generous = await FsSkillRepository.open({ roots: [tree.dir], maxReadableFileBytes: 4 * 1024 ** 3 });
    const error = await readError(generous.readFile('files', 'huge.bin'));
    expect(error.problem).toBe('too-large');
    expect(error.message).toContain('too large');
  });

  it('says a folder is a folder and a named pipe is not a regular file, without blocking on the pipe', async () => {
    const tree = await skill({ 'files/docs/a.md': 'a' });
    execFileSync('mkfifo', [tree.path('files/pipe')]);
    const repository = await FsSkillRepository.open({ roots: [tree.dir] });
    expect(await readError(repository.readFile('files', 'docs'))).toMatchObject({ problem: 'folder' });
    expect((await readError(repository.readFile('files', 'docs'))).message).toBe(
      'cannot read file "docs" of skill "files": it is a folder, not a file',
    );
    expect(await readError(repository.readFile('files', 'pipe'))).toMatchObject({ problem: 'not-a-file' });
  });

  it('keeps "not found" for paths that are not there, including through a file used as a folder', async () => {
    const tree = await skill({ 'files/notes.md': 'n' });
    const repository = await FsSkillRepository.open({ roots: [tree.dir] });
    await expect(repository.readFile('files', 'missing.md')).rejects.toBeInstanceOf(SkillFileNotFoundError);
    await expect(repository.readFile('files', 'notes.md/inner.md')).rejects.toBeInstanceOf(SkillFileNotFoundError);
  });

  it('reports a file this process may not read as a permission problem', async () => {
    const tree = await skill({ 'files/locked.md': 'secret' });
    execFileSync('chmod', ['000', tree.path('files/locked.md')]);
    if (process.getuid?.() !== 0) {
      const repository = await FsSkillRepository.open({ roots: [tree.dir] });
      expect(await readError(repository.readFile('files', 'locked.md'))).toMatchObject({ problem: 'permission' });
      return;
    }
    // Root reads any file; a child without the capabilities that bypass file modes meets the real EACCES.
    const script = `
      const { FsSkillRepository } = await import(${JSON.stringify(new URL('./fs-skill-repository.ts', import.meta.url).pathname)});
      const repository = await FsSkillRepository.open({ roots: [${JSON.stringify(tree.dir)}] });
      try { await repository.readFile('files', 'locked.md'); console.log('{}'); }
      catch (error) { console.log(JSON.stringify({ name: error.name, problem: error.problem, message: error.message })); }`;
    const output = execFileSync(
      'setpriv',
      [
        '--bounding-set=-dac_override,-dac_read_search',
        process.execPath,
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
      ],
      {
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(output)).toEqual({
      name: 'SkillFileReadError',
      problem: 'permission',
      message: 'cannot read file "locked.md" of skill "files": permission denied (EACCES)',
    });
  });

  it('rejects a limit that is not a positive integer', async () => {
    await expect(FsSkillRepository.open({ roots: [], maxReadableFileBytes: 0 })).rejects.toBeInstanceOf(
      SkillboxConfigError,
    );
  });
});
