import { afterEach, describe, expect, it } from 'vitest';
import { FsSkillRepository } from './fs-skill-repository.js';
import { createSkillTree, type SkillTree, skillMarkdown } from './testing/skill-tree.js';

// Past a few dozen SKILL.md files the repository reads them on the thread pool, and the reads
// finish in any order (read-skill-files.ts). These tests hold that the result does not show it: a
// large repository reports the same skills, in the same order, with the same reasons, as a small
// one read synchronously.

/** Skills that are each broken or unusual in their own way, the same in every tree below. */
function oddSkills(): Record<string, string> {
  return {
    'a-broken/SKILL.md': '---\nname: a-broken\n---\nno description\n',
    'b-empty/SKILL.md': '',
    'c-too-large/SKILL.md': skillMarkdown('c-too-large', 'Over the limit.', 'x'.repeat(300_000)),
    // Larger than the shared read blocks, under the limit: read into its own buffer.
    'd-large/SKILL.md': skillMarkdown('d-large', 'Large but allowed.', 'y'.repeat(100_000)),
    'e-not-yaml/SKILL.md': '---\nname: [unclosed\ndescription: x\n---\n',
    // Three folders claim one name: the first by path wins, whatever order the reads finish in.
    'f-twin-1/SKILL.md': skillMarkdown('twin', 'First twin.'),
    'f-twin-2/SKILL.md': skillMarkdown('twin', 'Second twin.'),
    'f-twin-3/SKILL.md': skillMarkdown('twin', 'Third twin.'),
  };
}

function fillerSkills(count: number): Record<string, string> {
  const entries: Record<string, string> = {};
  for (let index = 0; index < count; index += 1) {
    const name = `filler-${String(index).padStart(3, '0')}`;
    entries[`${name}/SKILL.md`] = skillMarkdown(name, `Filler ${index}.`);
  }
  return entries;
}

const trees: SkillTree[] = [];
afterEach(async () => {
  for (const tree of trees.splice(0)) await tree.remove();
});

async function openTree(entries: Record<string, string>): Promise<FsSkillRepository> {
  const tree = await createSkillTree(entries);
  trees.push(tree);
  return FsSkillRepository.open({ roots: [tree.dir], maxSkillFileBytes: 200_000 });
}

/** What a user sees of the odd skills, with the tree's folder taken out of the paths. */
async function oddView(repository: FsSkillRepository, dir: string) {
  const local = (path: string): string => path.slice(dir.length);
  const listed = (await repository.list()).filter((summary) => !summary.name.startsWith('filler-'));
  const report = await repository.report();
  return {
    listed: listed.map((summary) => ({
      name: summary.name,
      description: summary.description,
      path: local(summary.path),
    })),
    skipped: report.skipped.map((skipped) => ({ path: local(skipped.path), reason: skipped.reason })),
    shadowed: report.shadowed.map((shadowed) => ({
      ...shadowed,
      path: local(shadowed.path),
      winner: local(shadowed.winner),
    })),
    warnings: report.warnings,
  };
}

describe('FsSkillRepository with many skills', () => {
  it('reports broken, oversized and duplicate skills as a small repository does', async () => {
    const small = await openTree(oddSkills());
    const smallView = await oddView(small, trees[0]!.dir);
    const large = await openTree({ ...fillerSkills(200), ...oddSkills() });
    const largeView = await oddView(large, trees[1]!.dir);

    expect(largeView).toEqual(smallView);
    expect(smallView.listed.map((summary) => summary.name)).toEqual(['d-large', 'twin']);
    expect(smallView.listed.find((summary) => summary.name === 'twin')?.description).toBe('First twin.');
    expect(smallView.shadowed.map((shadowed) => shadowed.path)).toEqual(['/f-twin-2', '/f-twin-3']);
    expect(smallView.skipped.map((skipped) => skipped.path)).toEqual([
      '/a-broken/SKILL.md',
      '/b-empty/SKILL.md',
      '/c-too-large/SKILL.md',
      '/e-not-yaml/SKILL.md',
    ]);
    expect(smallView.skipped[2]?.reason).toContain('over the 200000-byte limit (maxSkillFileBytes)');
  });

  it('lists every skill of a large repository in name order with its own description and body', async () => {
    const repository = await openTree({ ...fillerSkills(300), ...oddSkills() });
    const listed = (await repository.list()).filter((summary) => summary.name.startsWith('filler-'));
    expect(listed.map((summary) => summary.name)).toEqual(
      Object.keys(fillerSkills(300)).map((path) => path.split('/')[0]),
    );
    for (const summary of listed) expect(summary.description).toBe(`Filler ${Number(summary.name.slice(7))}.`);
    // Each parse keeps its bytes for the body read later: shared read buffers must not mix them up.
    expect((await repository.get('filler-123')).body).toBe('# filler-123\n\nInstructions.');
    expect((await repository.get('d-large')).body).toContain('y'.repeat(100_000));
  });
});
