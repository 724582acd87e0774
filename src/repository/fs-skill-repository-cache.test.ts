import { utimes, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseSkillMarkdownDeferringBody } from '../format/parse-skill-deferring-body.js';
import { FsSkillRepository } from './fs-skill-repository.js';
import { createSkillTree, type SkillTree, skillMarkdown } from './testing/skill-tree.js';

// Counts real parses: the wrapped function is the parser itself, only observed.
vi.mock('../format/parse-skill-deferring-body.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../format/parse-skill-deferring-body.js')>();
  return { ...original, parseSkillMarkdownDeferringBody: vi.fn(original.parseSkillMarkdownDeferringBody) };
});
const parses = vi.mocked(parseSkillMarkdownDeferringBody);

let root: SkillTree;
beforeEach(async () => {
  const entries: Record<string, string> = {};
  for (let index = 0; index < 20; index += 1)
    entries[`skill-${index}/SKILL.md`] = skillMarkdown(`skill-${index}`, `Skill ${index}.`);
  entries['broken/SKILL.md'] = '---\nname: broken\n---\nno description\n';
  root = await createSkillTree(entries);
  parses.mockClear();
});
afterEach(() => root.remove());

describe('FsSkillRepository cache', () => {
  it('parses each SKILL.md once across opening, listing twice, get and report', async () => {
    const repository = await FsSkillRepository.open({ roots: [root.dir] });
    // A lenient open() finds the folders; the first list() reads them.
    expect(parses).toHaveBeenCalledTimes(0);
    expect(await repository.list()).toHaveLength(20);
    expect(parses).toHaveBeenCalledTimes(21);
    expect(await repository.list()).toHaveLength(20);
    await repository.get('skill-3');
    expect((await repository.report()).skipped).toHaveLength(1);
    // The broken one is remembered as broken too, not re-parsed on every listing.
    expect(parses).toHaveBeenCalledTimes(21);
  });

  it('parses each SKILL.md once when the first listings after open() are asked for at once', async () => {
    const repository = await FsSkillRepository.open({ roots: [root.dir] });
    const [first, second] = await Promise.all([repository.list(), repository.list(), repository.report()]);
    expect(first).toEqual(second);
    expect(parses).toHaveBeenCalledTimes(21);
  });

  it('reads every SKILL.md in open() when strict, which must fail there', async () => {
    await expect(FsSkillRepository.open({ roots: [root.dir], strict: true })).rejects.toThrow(/broken/);
    expect(parses).toHaveBeenCalledTimes(21);
  });

  it('re-parses only the file whose size or modification time changed', async () => {
    const repository = await FsSkillRepository.open({ roots: [root.dir] });
    await repository.list();
    parses.mockClear();
    await writeFile(root.path('skill-7/SKILL.md'), skillMarkdown('skill-7', 'Changed, same length.'));
    const later = new Date(Date.now() + 5_000);
    await utimes(root.path('skill-8/SKILL.md'), later, later);
    const descriptions = new Map((await repository.list()).map((summary) => [summary.name, summary.description]));
    expect(descriptions.get('skill-7')).toBe('Changed, same length.');
    expect(parses).toHaveBeenCalledTimes(2);
    await repository.refresh();
    expect(parses).toHaveBeenCalledTimes(2);
  });

  it('sees a same-length rewrite whose modification time was put back', async () => {
    const file = root.path('skill-5/SKILL.md');
    // A whole second, so setting it back is exact (a Date holds milliseconds, the disk nanoseconds).
    const stamp = new Date('2024-05-01T12:00:00Z');
    await utimes(file, stamp, stamp);
    const repository = await FsSkillRepository.open({ roots: [root.dir] });
    expect((await repository.get('skill-5')).description).toBe('Skill 5.');
    await writeFile(file, skillMarkdown('skill-5', 'Skill X.'));
    await utimes(file, stamp, stamp);
    const descriptions = new Map((await repository.list()).map((summary) => [summary.name, summary.description]));
    expect(descriptions.get('skill-5')).toBe('Skill X.');
  });
});
