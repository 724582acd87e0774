import { realpath } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../config/config-error.js';
import { FsSkillRepository } from './fs-skill-repository.js';
import { createSkillTree, type SkillTree, skillMarkdown } from './testing/skill-tree.js';

const trees: SkillTree[] = [];
afterEach(async () => {
  await Promise.all(trees.splice(0).map((created) => created.remove()));
});

async function tree(entries: Parameters<typeof createSkillTree>[0]): Promise<SkillTree> {
  const created = await createSkillTree(entries);
  trees.push(created);
  return created;
}

const family = {
  'outer/SKILL.md': skillMarkdown('outer', 'Holds other skills.'),
  'outer/docs/outer-guide.md': 'outer guide',
  'outer/inner/SKILL.md': skillMarkdown('inner', 'Nested one level.'),
  'outer/inner/docs/inner-guide.md': 'inner guide',
  'outer/inner/deepest/SKILL.md': skillMarkdown('deepest', 'Nested two levels.'),
  'outer/inner/deepest/notes.txt': 'deepest notes',
  'outer/inner-notes.md': "a sibling file of the nested folder, still the outer skill's",
  'outer/node_modules/pkg/SKILL.md': skillMarkdown('vendored', 'Never scanned.'),
};

describe('FsSkillRepository nested discovery', () => {
  it('is off by default: a nested SKILL.md is a bundled file and a doc of the outer skill', async () => {
    const root = await tree(family);
    const repository = await FsSkillRepository.open({ roots: [root.dir] });
    expect((await repository.list()).map((summary) => summary.name)).toEqual(['outer']);
    expect((await repository.get('outer')).docs).toContain('inner/SKILL.md');
  });

  it('indexes skills inside skills when asked, each with its own docs, while the outer one keeps its files', async () => {
    const root = await tree(family);
    const real = await realpath(root.dir);
    const repository = await FsSkillRepository.open({ roots: [root.dir], nested: true });
    expect((await repository.list()).map((summary) => `${summary.name} ${summary.path?.slice(real.length)}`)).toEqual([
      'deepest /outer/inner/deepest',
      'inner /outer/inner',
      'outer /outer',
    ]);
    const outer = await repository.get('outer');
    expect(outer.docs).toEqual(['docs/outer-guide.md', 'inner-notes.md']);
    expect(await repository.listFiles('outer')).toEqual([
      'SKILL.md',
      'docs/outer-guide.md',
      'inner-notes.md',
      'inner/SKILL.md',
      'inner/deepest/SKILL.md',
      'inner/deepest/notes.txt',
      'inner/docs/inner-guide.md',
    ]);
    expect((await repository.readFile('outer', 'inner/docs/inner-guide.md')).toString()).toBe('inner guide');
    expect((await repository.get('inner')).docs).toEqual(['docs/inner-guide.md']);
    expect((await repository.get('deepest')).docs).toEqual(['notes.txt']);
  });

  it('works when the root itself is a skill, lets the outer skill win a shared name, and excludes broken nested skills too', async () => {
    const root = await tree({
      'SKILL.md': skillMarkdown('top', 'The root is a skill.'),
      'readme.md': 'top doc',
      'twin/SKILL.md': skillMarkdown('top', 'Same name, nested.'),
      'twin/twin-doc.md': 'twin doc',
      'broken/SKILL.md': '---\nname: broken\n---\nNo description.\n',
      'broken/broken-doc.md': 'broken doc',
    });
    const real = await realpath(root.dir);
    const repository = await FsSkillRepository.open({ roots: [root.dir], nested: true });
    expect((await repository.list()).map((summary) => summary.path)).toEqual([real]);
    const report = await repository.report();
    expect(report.shadowed).toEqual([{ name: 'top', path: `${real}/twin`, winner: real }]);
    expect(report.skipped.map((skipped) => skipped.path)).toEqual([`${real}/broken/SKILL.md`]);
    expect((await repository.get('top')).docs).toEqual(['readme.md']);
  });

  it('refuses a nested option that is not a boolean', async () => {
    await expect(FsSkillRepository.open({ roots: ['/x'], nested: 'yes' as unknown as boolean })).rejects.toThrow(
      SkillboxConfigError,
    );
    await expect(FsSkillRepository.open({ roots: ['/x'], nested: 'yes' as unknown as boolean })).rejects.toThrow(
      'createFsSkillRepository: option "nested" must be true or false; got "yes"',
    );
  });
});
