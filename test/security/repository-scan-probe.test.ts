// Attack: the scan now knows a skill folder by one lstat of `folder/SKILL.md` instead of reading the
// folder. Someone who can write into a skills root tries to make that shortcut take what reading the
// folder refused: a SKILL.md that is a link to a private file, a folder that is a link out of the
// root holding a regular SKILL.md, a SKILL.md that is a folder or a fifo (a read that would hang),
// and a flood of skill folders meant to slip past maxEntries because a probed folder reads no entries.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsSkillRepository } from '../../src/repository/fs-skill-repository.js';

const secret = 'SECRET-FROM-OUTSIDE-THE-ROOT';

function skillText(name: string, description: string): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\nBody of ${name}.\n`;
}

describe('the scan that knows a skill folder by an lstat of its SKILL.md', () => {
  let base: string;
  let root: string;
  let outside: string;

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'skillbox-scan-probe-'));
    root = join(base, 'skills');
    outside = join(base, 'outside');
    await mkdir(join(root, 'plain'), { recursive: true });
    await writeFile(join(root, 'plain', 'SKILL.md'), skillText('plain', 'A plain skill.'));
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'SKILL.md'), skillText('stolen', `Stolen ${secret}`));
    await writeFile(join(outside, 'private.md'), skillText('leaked', `Leaked ${secret}`));
  });

  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  async function listedAndReported(repository: FsSkillRepository): Promise<string> {
    return JSON.stringify([await repository.list(), await repository.report()]);
  }

  it('does not take a SKILL.md that links to a file outside the root', async () => {
    await mkdir(join(root, 'linked'));
    await symlink(join(outside, 'private.md'), join(root, 'linked', 'SKILL.md'));
    const repository = await FsSkillRepository.open({ roots: [root] });
    expect((await repository.list()).map((skill) => skill.name)).toEqual(['plain']);
    const report = await repository.report();
    expect(JSON.stringify(report)).toContain('linked');
    expect(await listedAndReported(repository)).not.toContain(secret);
    await expect(repository.get('leaked')).rejects.toThrow();
  });

  it('does not take a folder that links out of the root, though its SKILL.md is a regular file', async () => {
    await symlink(outside, join(root, 'escape'));
    const repository = await FsSkillRepository.open({ roots: [root] });
    expect((await repository.list()).map((skill) => skill.name)).toEqual(['plain']);
    expect(await listedAndReported(repository)).not.toContain(secret);
    await expect(repository.get('stolen')).rejects.toThrow();
  });

  it('skips a SKILL.md that is a folder or a fifo, naming the folder, without hanging', async () => {
    await mkdir(join(root, 'folder-file', 'SKILL.md'), { recursive: true });
    await mkdir(join(root, 'fifo-file'));
    execFileSync('mkfifo', [join(root, 'fifo-file', 'SKILL.md')]);
    const repository = await FsSkillRepository.open({ roots: [root] });
    expect((await repository.list()).map((skill) => skill.name)).toEqual(['plain']);
    const report = JSON.stringify(await repository.report());
    expect(report).toContain('folder-file');
    expect(report).toContain('fifo-file');
  }, 10_000);

  it('still stops at maxEntries when every folder is a probed skill folder', async () => {
    for (let index = 0; index < 40; index += 1) {
      const name = `flood-${String(index).padStart(2, '0')}`;
      await mkdir(join(root, name));
      await writeFile(join(root, name, 'SKILL.md'), skillText(name, `Flood ${index}.`));
    }
    // The root holds 41 entries: the bound must cut the scan, not only the root's own readdir.
    const repository = await FsSkillRepository.open({ roots: [root], maxEntries: 60 });
    const listed = await repository.list();
    expect(listed.length).toBeLessThan(41);
    expect(listed.length).toBeGreaterThan(0);
    expect(JSON.stringify(await repository.report())).toContain('maxEntries');
  });
});
