import { describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../config/config-error.js';
import { combineRepositories } from './combine-repositories.js';
import { SkillNotFoundError } from './errors.js';
import { filterSkills } from './filter-skills.js';
import { createMemorySkillRepository } from './memory-skill-repository.js';

const first = createMemorySkillRepository([
  { name: 'shared', description: 'from first', body: 'first body', files: { 'a.md': 'first a' } },
  { name: 'only-first', description: 'one', body: '' },
]);
const second = createMemorySkillRepository([
  { name: 'shared', description: 'from second', body: 'second body', files: { 'b.md': 'second b' } },
  { name: 'alpha', description: 'two', body: '' },
]);

describe('combineRepositories', () => {
  it('lists the union sorted by name, the first repository winning a name', async () => {
    const combined = combineRepositories([first, second]);
    expect(await combined.list()).toEqual([
      { name: 'alpha', description: 'two' },
      { name: 'only-first', description: 'one' },
      { name: 'shared', description: 'from first' },
    ]);
    expect((await combined.get('shared')).body).toBe('first body');
    expect(await combined.listFiles('shared')).toEqual(['SKILL.md', 'a.md']);
    expect((await combined.readFile('alpha', 'SKILL.md')).toString()).toContain('name: alpha');
    await expect(combined.readFile('shared', 'b.md')).rejects.toThrow('has no file "b.md"');
    await expect(combined.get('missing')).rejects.toBeInstanceOf(SkillNotFoundError);
  });

  it('reports names shadowed across repositories with the winner', async () => {
    const report = await combineRepositories([first, second]).report();
    expect(report.shadowed).toEqual([
      { name: 'shared', path: 'repository #1: shared', winner: 'repository #0: shared' },
    ]);
  });

  it('falls through to a later repository when an earlier one hides the name', async () => {
    const hidden = filterSkills(first, (summary) => summary.name !== 'shared');
    const combined = combineRepositories([hidden, second]);
    expect((await combined.get('shared')).body).toBe('second body');
    expect((await combined.list()).find((summary) => summary.name === 'shared')?.description).toBe('from second');
  });

  it('rejects something that is not a repository', () => {
    expect(() => combineRepositories([first, {} as never])).toThrow(SkillboxConfigError);
    expect(() => combineRepositories([first, {} as never])).toThrow(
      'combineRepositories: option "repositories[1]" must be a SkillRepository (an object with list(), get(), listFiles(), readFile(), report(), refresh()); got an object',
    );
  });
});
