import { describe, expect, it } from 'vitest';
import { renderCatalogWithReport } from '../disclosure/catalog.js';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { createInMemoryStateView } from '../state/in-memory-state-view.js';
import { createSkillTools } from './create-skill-tools.js';
import { SkillToolError } from './errors.js';
import type { SkillSearchOutput } from './skill-search-tool.js';
import type { ToolDefinition } from './types.js';

const definitions = Array.from({ length: 40 }, (_, index) => ({
  name: `skill-${String(index).padStart(2, '0')}`,
  description: `Handles chores of kind ${index}: reads the inputs, checks them and writes a report about them.`,
  body: 'Body.',
}));
definitions.push({ name: 'pdf-forms', description: 'Fill in PDF forms and extract their fields.', body: 'pypdf.' });
const repository = createMemorySkillRepository(definitions);
const context = { sessionId: 's', agentName: 'a', state: createInMemoryStateView() };

describe('skill_search', () => {
  it('is registered by skillSearch: true, after the knowledge tools and before the execution tools', () => {
    expect(createSkillTools({ repository }).map((tool) => tool.name)).not.toContain('skill_search');
    const names = createSkillTools({ repository, skillSearch: true }).map((tool) => tool.name);
    expect(names).toEqual(['skill_load', 'skill_list_docs', 'skill_select_docs', 'skill_read', 'skill_search']);
    expect(() => createSkillTools({ repository, skillSearch: 'yes' as unknown as boolean })).toThrow(/skillSearch/);
  });

  it('returns ranked names with full descriptions and scores, and says what to do when nothing matches', async () => {
    const search = createSkillTools({ repository, profile: ['skill_search'] })[0] as ToolDefinition<
      unknown,
      SkillSearchOutput
    >;
    expect(search.writesState).toBe(false);
    const found = await search.execute({ query: 'fill a PDF form', limit: 3 }, context);
    expect(found.results[0]).toEqual({
      name: 'pdf-forms',
      description: 'Fill in PDF forms and extract their fields.',
      score: expect.any(Number),
    });
    expect(found.results.length).toBeLessThanOrEqual(3);
    const none = await search.execute({ query: 'quantum chromodynamics' }, context);
    expect(none.results).toEqual([]);
    expect(none.note).toMatch(/Try other words/);
    await expect(search.execute({ query: '  ' }, context)).rejects.toThrow(SkillToolError);
    await expect(search.execute({ query: 'pdf', limit: 500 }, context)).rejects.toThrow(/limit/);
  });
});

describe('the catalog and skill_search', () => {
  const skills = definitions.map(({ name, description }) => ({ name, description }));
  const tools = ['skill_load', 'skill_search'];

  it('over its budget, says it is shortened and points to skill_search, within the budget', () => {
    const report = renderCatalogWithReport({ skills, tools, budget: { tokens: 500 } });
    expect(report.shortened).toBe(true);
    expect(report.overBudget).toBe(false);
    expect(report.searchOffered).toBe(true);
    expect(report.text).toContain('This list is shortened to fit its budget');
    expect(report.text).toContain('call skill_search with words describing the task');
    expect(report.tokens).toBeLessThanOrEqual(500);
  });

  it('within its budget, names skill_search only when asked to always', () => {
    const fits = renderCatalogWithReport({ skills, tools, budget: { tokens: 100_000 } });
    expect(fits.shortened).toBe(false);
    expect(fits.searchOffered).toBe(false);
    expect(fits.text).not.toContain('skill_search');
    const always = renderCatalogWithReport({ skills, tools, skillSearch: 'always' });
    expect(always.searchOffered).toBe(true);
    expect(always.text).toContain('skill_search finds skills by words describing a task');
  });

  it('without the tool, a shortened catalog does not point to it', () => {
    const report = renderCatalogWithReport({ skills, tools: ['skill_load'], budget: { tokens: 300 } });
    expect(report.shortened).toBe(true);
    expect(report.searchOffered).toBe(false);
    expect(report.text).not.toContain('skill_search');
  });
});
