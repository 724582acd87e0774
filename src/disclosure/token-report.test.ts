import { describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { buildTokenReport, percentSaved } from './token-report.js';
import { countTokens } from './token-counter.js';

describe('buildTokenReport', () => {
  it('reports per skill and in total with the o200k tokenizer', async () => {
    const repository = createMemorySkillRepository([
      { name: 'calc', description: 'math ops', body: 'hello world', files: { 'a.md': 'hello', 'b.txt': 'hello world' } },
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
    });
    expect(report.skills[1]?.body_tokens).toBe(0);
    expect(report.totals).toEqual({
      name_description: report.skills[0]!.name_description_tokens + report.skills[1]!.name_description_tokens,
      catalog: countTokens('Available skills:\n- calc: math ops\n- notes: note taking'),
      bodies: 2,
      bodies_and_docs: 5,
    });
    const xml = await buildTokenReport({ repository, format: 'xml' });
    expect(xml.totals.catalog).toBeGreaterThan(report.totals.catalog);
  });

  it('computes the percentage saved', () => {
    expect(percentSaved(25, 1000)).toBe(97.5);
    expect(percentSaved(5, 0)).toBe(0);
  });
});
