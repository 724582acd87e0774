import { describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { countTokens } from './token-counter.js';
import { buildTokenReport, percentSaved } from './token-report.js';

describe('buildTokenReport', () => {
  it('measures the skills the model is offered, or all of them with includeNonModelInvocable', async () => {
    const repository = createMemorySkillRepository([
      { name: 'calc', description: 'math ops', body: 'hello world' },
      { name: 'grill-me', description: 'interview', body: 'hello', disableModelInvocation: true },
    ]);
    const offered = await buildTokenReport({ repository });
    expect(offered.skills.map((skill) => skill.name)).toEqual(['calc']);
    expect([offered.totals.catalog, offered.totals.bodies]).toEqual([
      countTokens('Available skills:\n- calc: math ops'),
      2,
    ]);
    const all = await buildTokenReport({ repository, includeNonModelInvocable: true });
    expect(all.skills.map((skill) => skill.name)).toEqual(['calc', 'grill-me']);
    expect([all.totals.catalog, all.totals.bodies]).toEqual([
      countTokens('Available skills:\n- calc: math ops\n- grill-me: interview'),
      3,
    ]);
  });

  it('reports per skill and in total with the o200k tokenizer', async () => {
    const repository = createMemorySkillRepository([
      {
        name: 'calc',
        description: 'math ops',
        body: 'hello world',
        files: { 'a.md': 'hello', 'b.txt': 'hello world' },
      },
      { name: 'notes', description: 'note taking', body: '' },
    ]);
    const report = await buildTokenReport({ repository });
    expect(countTokens('hello world')).toBe(2);
    expect(report.tokenizer).toBe('o200k_base');
    expect(report.skills[0]).toEqual({
      name: 'calc',
      name_description_tokens: countTokens('calc') + countTokens('math ops'),
      catalog_tokens: countTokens('- calc: math ops\n'),
      body_tokens: 2,
      docs_tokens: 3,
      docs_capped: 0,
      docs_unreadable: 0,
    });
    expect(report.skills[1]?.body_tokens).toBe(0);
    expect(report.totals).toEqual({
      name_description: report.skills[0]!.name_description_tokens + report.skills[1]!.name_description_tokens,
      catalog: countTokens('Available skills:\n- calc: math ops\n- notes: note taking'),
      bodies: 2,
      bodies_and_docs: 5,
      docs_capped: 0,
      docs_unreadable: 0,
    });
    expect(report.max_counted_doc_bytes).toBe(256 * 1024);
    const xml = await buildTokenReport({ repository, format: 'xml' });
    expect(xml.totals.catalog).toBeGreaterThan(report.totals.catalog);
  });

  it('counts a capped prefix of a doc over maxCountedDocBytes and says so', async () => {
    const repository = createMemorySkillRepository([
      {
        name: 'big',
        description: 'd',
        body: '',
        files: { 'big.md': 'word '.repeat(1000), 'small.md': 'word '.repeat(10) },
      },
    ]);
    const report = await buildTokenReport({ repository, maxCountedDocBytes: 100 });
    expect(report.skills[0]).toMatchObject({
      docs_tokens: countTokens('word '.repeat(20)) + countTokens('word '.repeat(10)),
      docs_capped: 1,
      docs_unreadable: 0,
    });
    expect(report.totals.docs_capped).toBe(1);
    expect(report.max_counted_doc_bytes).toBe(100);
    await expect(buildTokenReport({ repository, maxCountedDocBytes: 0 })).rejects.toThrow(/maxCountedDocBytes/);
  });

  it('computes the percentage saved', () => {
    expect(percentSaved(25, 1000)).toBe(97.5);
    expect(percentSaved(5, 0)).toBe(0);
  });
});
