import { asSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../../config/config-error.js';
import { FilteredSkillRepository } from '../../repository/filter-skills.js';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import type { SkillContext } from '../../repository/types.js';
import { maxSkillEnumValues } from '../../tools/skill-tool-support.js';
import type { SkillToolkit } from './skill-toolkit.js';
import { createVisibleSkillToolkits } from './visible-skill-toolkits.js';

function skills(count: number) {
  return Array.from({ length: count }, (_, index) => ({
    name: `skill-${String(index).padStart(3, '0')}`,
    description: `Skill number ${index}.`,
    body: 'body',
  }));
}

/** The `skill` property of skill_load's JSON schema, as the model receives it. */
async function skillInput(toolkit: SkillToolkit): Promise<{ type?: string; enum?: string[] }> {
  const schema = (await asSchema(toolkit.tools.skill_load!.inputSchema).jsonSchema) as {
    properties: { skill: { type?: string; enum?: string[] } };
  };
  return schema.properties.skill;
}

// Tenant "a" sees the even-numbered skills, anyone else all of them.
const filtered = (count: number) =>
  new FilteredSkillRepository(
    createMemorySkillRepository(skills(count)),
    (summary, context: SkillContext) => context.tenantId !== 'a' || Number(summary.name.slice(-3)) % 2 === 0,
  );

describe('createVisibleSkillToolkits', () => {
  it('builds one toolkit per visible-name list and reuses it for the same list', async () => {
    const toolkits = createVisibleSkillToolkits({ repository: filtered(4) });
    const tenantA = await toolkits.forContext({ tenantId: 'a', userId: 'one' });
    expect(await skillInput(tenantA)).toMatchObject({ enum: ['skill-000', 'skill-002'] });
    expect(await toolkits.forContext({ tenantId: 'a', userId: 'two' })).toBe(tenantA);
    const everyone = await toolkits.forContext();
    expect(everyone).not.toBe(tenantA);
    expect(await skillInput(everyone)).toMatchObject({ enum: ['skill-000', 'skill-001', 'skill-002', 'skill-003'] });
    expect(toolkits.toolNames).toEqual(Object.keys(tenantA.tools));
  });

  it(`falls back to a plain string above ${maxSkillEnumValues} visible names, and uses an enum again below`, async () => {
    const toolkits = createVisibleSkillToolkits({ repository: filtered(maxSkillEnumValues + 2) });
    const all = await skillInput(await toolkits.forContext());
    expect(all.type).toBe('string');
    expect(all.enum).toBeUndefined();
    const half = await skillInput(await toolkits.forContext({ tenantId: 'a' }));
    expect(half.enum).toHaveLength((maxSkillEnumValues + 2) / 2);
  });

  it('uses a plain string when nothing is visible (an enum needs a value)', async () => {
    const toolkits = createVisibleSkillToolkits({
      repository: new FilteredSkillRepository(createMemorySkillRepository(skills(2)), () => false),
    });
    expect((await skillInput(await toolkits.forContext())).type).toBe('string');
  });

  it('keeps at most maxCachedToolkits, dropping the least recently used', async () => {
    const repository = new FilteredSkillRepository(
      createMemorySkillRepository(skills(3)),
      (summary, context: SkillContext) => summary.name !== context.userId,
    );
    const toolkits = createVisibleSkillToolkits({ repository, maxCachedToolkits: 2 });
    const first = await toolkits.forContext({ userId: 'skill-000' });
    const second = await toolkits.forContext({ userId: 'skill-001' });
    expect(await toolkits.forContext({ userId: 'skill-000' })).toBe(first); // now the most recent
    await toolkits.forContext({ userId: 'skill-002' }); // evicts skill-001's toolkit
    expect(await toolkits.forContext({ userId: 'skill-000' })).toBe(first);
    expect(await toolkits.forContext({ userId: 'skill-001' })).not.toBe(second);
  });

  it('checks its options at construction', () => {
    const repository = createMemorySkillRepository(skills(1));
    expect(() => createVisibleSkillToolkits({ repository, maxCachedToolkits: 0 })).toThrow(SkillboxConfigError);
    expect(() => createVisibleSkillToolkits({ repository, maxCachedToolkits: 0 })).toThrow(/maxCachedToolkits/);
    expect(() => createVisibleSkillToolkits({ repository, profile: ['no_such_tool'] })).toThrow(/no_such_tool/);
  });
});
