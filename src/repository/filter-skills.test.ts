import { describe, expect, it } from 'vitest';
import { SkillNotFoundError } from './errors.js';
import { filterSkills } from './filter-skills.js';
import { createMemorySkillRepository } from './memory-skill-repository.js';
import type { SkillContext, SkillSummary } from './types.js';

const base = createMemorySkillRepository([
  { name: 'public-notes', description: 'for everyone', body: 'p', files: { 'a.md': 'a' } },
  { name: 'admin-tools', description: 'admins only', body: 'secret', files: { 'b.md': 'b' } },
]);
const adminsOnly = (summary: SkillSummary, context: SkillContext): boolean =>
  !summary.name.startsWith('admin-') || (context.roles ?? []).includes('admin');

describe('filterSkills', () => {
  it('shows a skill only to callers the predicate accepts', async () => {
    const filtered = filterSkills(base, adminsOnly);
    expect((await filtered.list()).map((summary) => summary.name)).toEqual(['public-notes']);
    expect((await filtered.list({ roles: ['admin'] })).map((summary) => summary.name)).toEqual([
      'admin-tools',
      'public-notes',
    ]);
    expect((await filtered.get('admin-tools', { roles: ['admin'] })).body).toBe('secret');
  });

  it('makes a hidden skill indistinguishable from an unknown one', async () => {
    const filtered = filterSkills(base, adminsOnly);
    const errorOf = async (promise: Promise<unknown>): Promise<unknown> =>
      promise.then(
        () => undefined,
        (error: unknown) => error,
      );
    for (const name of ['admin-tools', 'no-such-skill']) {
      for (const call of [
        filtered.get(name),
        filtered.listFiles(name),
        filtered.readFile(name, 'b.md'),
        filtered.readFile(name, '../x'),
      ]) {
        const error = await errorOf(call);
        expect(error).toBeInstanceOf(SkillNotFoundError);
        expect((error as Error).message).toBe(`skill "${name}" not found`);
      }
    }
  });

  it('passes an empty context when none is given and supports async predicates', async () => {
    const seen: SkillContext[] = [];
    const filtered = filterSkills(base, async (_summary, context) => {
      seen.push(context);
      return context.tenantId === 'acme';
    });
    expect(await filtered.list()).toEqual([]);
    expect(seen[0]).toEqual({});
    expect(await filtered.listFiles('public-notes', { tenantId: 'acme' })).toEqual(['SKILL.md', 'a.md']);
  });

  it('rejects a predicate that is not a function', () => {
    expect(() => filterSkills(base, 'yes' as never)).toThrow(
      'filterSkills: option "visible" must be a function (summary, context) => boolean; got "yes"',
    );
  });
});
