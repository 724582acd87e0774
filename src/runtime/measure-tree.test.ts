import { execFileSync } from 'node:child_process';
import { chmod, chown, link, lstat, mkdir, mkdtemp, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { measureTree } from './measure-tree.js';
import { removeTree } from './remove-tree.js';

const unlimited = { maxBytes: Infinity, maxFiles: Infinity };

describe.runIf(process.platform === 'linux')('measureTree', () => {
  let scratch: string;
  let root: string;
  beforeEach(async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'skillbox-measure-'));
    root = path.join(scratch, 'workspace');
    await mkdir(root);
  });
  afterEach(async () => {
    await removeTree(scratch);
  });

  const blocksOf = async (...paths: string[]) => {
    let bytes = 0;
    for (const entry of paths) bytes += (await lstat(entry)).blocks * 512;
    return bytes;
  };

  it('counts every entry once by inode, without following links', async () => {
    await mkdir(path.join(root, 'a/b'), { recursive: true });
    await writeFile(path.join(root, 'a/b/data'), Buffer.alloc(100_000, 1));
    await link(path.join(root, 'a/b/data'), path.join(root, 'a/again'));
    await writeFile(path.join(scratch, 'outside'), Buffer.alloc(1_000_000, 1));
    await symlink(path.join(scratch, 'outside'), path.join(root, 'a/out'));
    await symlink(scratch, path.join(root, 'up'));
    const usage = await measureTree(root, unlimited);
    const expected = await blocksOf(
      path.join(root, 'a'),
      path.join(root, 'a/b'),
      path.join(root, 'a/b/data'),
      path.join(root, 'a/out'),
      path.join(root, 'up'),
    );
    // a, a/b, a/b/data (= a/again), a/out, up.
    expect(usage).toEqual({ bytes: expected, files: 5 });
  });

  it('counts a workspace removed before the walk began as empty instead of throwing', async () => {
    // A quota watch whose timer fires as the workspace is being removed walks a root that is gone;
    // a throw there was an unhandled rejection of the watch's timer.
    await expect(measureTree(path.join(scratch, 'removed'), unlimited)).resolves.toEqual({ bytes: 0, files: 0 });
  });

  it('stops at the first limit passed', async () => {
    for (let index = 0; index < 50; index += 1) await writeFile(path.join(root, `f${index}`), 'x');
    expect(await measureTree(root, { maxBytes: Infinity, maxFiles: 10 })).toEqual({
      bytes: expect.any(Number),
      files: 11,
      exceeded: 'files',
    });
    await writeFile(path.join(root, 'big'), Buffer.alloc(1_000_000, 1));
    expect((await measureTree(root, { maxBytes: 500_000, maxFiles: Infinity })).exceeded).toBe('disk');
  });

  it('gives a folder made unreadable its owner permissions back, and counts what it holds', async () => {
    await mkdir(path.join(root, 'hide/deeper'), { recursive: true });
    await writeFile(path.join(root, 'hide/deeper/big'), Buffer.alloc(1_000_000, 1));
    const full = await measureTree(root, unlimited);
    await chmod(path.join(root, 'hide/deeper'), 0o000);
    await chmod(path.join(root, 'hide'), 0o200);
    expect(await measureTree(root, unlimited)).toEqual(full);
    expect((await stat(path.join(root, 'hide'))).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(root, 'hide/deeper'))).mode & 0o777).toBe(0o700);
  });

  it('never changes the mode of a folder outside, whatever link leads there', async () => {
    const host = path.join(scratch, 'host-folder');
    await mkdir(host, { mode: 0o700 });
    await chmod(host, 0o000);
    await symlink(host, path.join(root, 'link'));
    await mkdir(path.join(root, 'via'));
    await symlink(scratch, path.join(root, 'via/up'));
    await measureTree(root, unlimited);
    expect((await stat(host)).mode & 0o777).toBe(0o000);
  });

  // Root reads and chmods any folder; a child without the capabilities that bypass file modes and
  // ownership meets a folder it can neither read nor repair (one another user owns).
  it.runIf(process.getuid?.() === 0)('reports a folder it cannot read or repair as over the disk limit', async () => {
    await mkdir(path.join(root, 'theirs'));
    await writeFile(path.join(root, 'theirs/big'), Buffer.alloc(1_000_000, 1));
    await chown(path.join(root, 'theirs'), 12345, 12345);
    await chmod(path.join(root, 'theirs'), 0o000);
    const script = `
      const { measureTree } = await import(${JSON.stringify(new URL('./measure-tree.ts', import.meta.url).pathname)});
      console.log(JSON.stringify(await measureTree(${JSON.stringify(root)}, { maxBytes: Infinity, maxFiles: Infinity })));`;
    const output = execFileSync(
      'setpriv',
      [
        '--bounding-set=-dac_override,-dac_read_search,-fowner',
        process.execPath,
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
      ],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(output)).toMatchObject({ exceeded: 'disk', unreadable: 'theirs (EACCES)' });
    expect((await stat(path.join(root, 'theirs'))).mode & 0o777).toBe(0o000);
  });
});
