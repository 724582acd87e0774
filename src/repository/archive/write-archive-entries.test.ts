import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ArchiveEntry } from './archive-entry.js';
import { writeArchiveEntries } from './write-archive-entries.js';

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const file = (path: string, data: string, mode = 0o644): ArchiveEntry => ({
  path,
  type: 'file',
  mode,
  data: Buffer.from(data),
});

describe('writeArchiveEntries', () => {
  it('makes folders, writes files with owner read/write kept and no set-id bits', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'skillbox-write-'));
    made.push(dir);
    const target = join(dir, 'root');
    await writeArchiveEntries(target, [
      { path: 'locked', type: 'directory', mode: 0o500, data: Buffer.alloc(0) },
      file('locked/inside.md', 'inside', 0o400),
      file('a/b/c/run.sh', '#!/bin/sh\n', 0o4755),
    ]);
    expect(await readFile(join(target, 'locked/inside.md'), 'utf8')).toBe('inside');
    expect((await stat(join(target, 'locked'))).mode & 0o7777).toBe(0o700);
    expect((await stat(join(target, 'locked/inside.md'))).mode & 0o7777).toBe(0o600);
    expect((await stat(join(target, 'a/b/c/run.sh'))).mode & 0o7777).toBe(0o755);
    expect(await readdir(join(target, 'a/b'))).toEqual(['c']);
  });

  it('fails instead of replacing a file that is already there', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'skillbox-write-'));
    made.push(dir);
    await writeArchiveEntries(dir, [file('same.md', 'first')]);
    await expect(writeArchiveEntries(dir, [file('same.md', 'second')])).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await readFile(join(dir, 'same.md'), 'utf8')).toBe('first');
  });
});
