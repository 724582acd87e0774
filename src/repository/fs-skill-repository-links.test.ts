import { mkdir, mkdtemp, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsSkillRepository } from './fs-skill-repository.js';

const skill = (name: string, description: string, body: string): string =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

describe('FsSkillRepository with SKILL.md files that are links inside the root', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'skillbox-linked-skill-files-'));
    await mkdir(join(root, 'templates'));
    await writeFile(join(root, 'templates', 'v1.md'), skill('notes', 'Version one.', 'Body one'));
    await writeFile(join(root, 'templates', 'v2.md'), skill('notes', 'Version two.', 'Body two'));
    await mkdir(join(root, 'notes'));
    await symlink('../templates/v1.md', join(root, 'notes', 'SKILL.md'));
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function seen(repository: FsSkillRepository): Promise<[string[], string]> {
    const listed = (await repository.list()).map((summary) => `${summary.name}: ${summary.description}`);
    const body = await repository.get('notes').then(
      (loaded) => loaded.body.trim(),
      (error: Error) => `error: ${error.message}`,
    );
    return [listed, body];
  }

  it('follows the link as it is edited, without a refresh: re-pointed, replaced by a file, removed', async () => {
    const repository = await FsSkillRepository.open({ roots: [root] });
    expect(await seen(repository)).toEqual([['notes: Version one.'], 'Body one']);

    await symlink('../templates/v2.md', join(root, 'notes', 'SKILL.next'));
    await rename(join(root, 'notes', 'SKILL.next'), join(root, 'notes', 'SKILL.md'));
    expect(await seen(repository)).toEqual([['notes: Version two.'], 'Body two']);

    await unlink(join(root, 'notes', 'SKILL.md'));
    await writeFile(join(root, 'notes', 'SKILL.md'), skill('notes', 'Its own file.', 'Own body'));
    expect(await seen(repository)).toEqual([['notes: Its own file.'], 'Own body']);

    await unlink(join(root, 'notes', 'SKILL.md'));
    expect(await seen(repository)).toEqual([[], 'error: skill "notes" not found']);
  });

  it('refuses a link re-pointed out of the root, naming where it leads', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'skillbox-linked-outside-'));
    try {
      await writeFile(join(outside, 'SKILL.md'), skill('notes', 'From outside.', 'Outside body'));
      const repository = await FsSkillRepository.open({ roots: [root] });
      await repository.list();
      await symlink(join(outside, 'SKILL.md'), join(root, 'notes', 'SKILL.next'));
      await rename(join(root, 'notes', 'SKILL.next'), join(root, 'notes', 'SKILL.md'));
      expect(await seen(repository)).toEqual([[], 'error: skill "notes" not found']);
      expect((await repository.report()).skipped).toEqual([
        {
          path: join(root, 'notes', 'SKILL.md'),
          reason: `it is a link that leads out of the roots (to ${join(outside, 'SKILL.md')})`,
        },
      ]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('parses each of two skills whose links lead to the same file under its own folder name', async () => {
    await writeFile(join(root, 'templates', 'unnamed.md'), '---\ndescription: Shared text.\n---\nShared body\n');
    for (const name of ['alpha', 'beta']) {
      await mkdir(join(root, name));
      await symlink('../templates/unnamed.md', join(root, name, 'SKILL.md'));
    }
    const repository = await FsSkillRepository.open({ roots: [root] });
    expect((await repository.list()).map((summary) => summary.name)).toEqual(['alpha', 'beta', 'notes']);
    expect((await repository.get('beta')).body.trim()).toBe('Shared body');
    expect((await repository.report()).shadowed).toEqual([]);
  });
});
