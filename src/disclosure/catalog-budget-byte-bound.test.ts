import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { SkillSummary } from '../repository/types.js';
import { type CatalogFormat, renderCatalog } from './catalog.js';

// The four skills of examples/skills, as a small library looks to the catalog.
const skills: SkillSummary[] = [
  {
    name: 'file-ops',
    description: 'Read, write and list files in the workspace; use when the task needs files created or inspected.',
    path: '/skills/file-ops',
  },
  {
    name: 'python-math',
    description: 'Run Python for arithmetic, statistics and unit conversions; use when a result must be computed.',
    path: '/skills/python-math',
  },
  {
    name: 'user-file-ops',
    description:
      'Work with the files the user attached: summarise, convert or extract data from them. 数据 — résumé 🙂',
    path: '/skills/user-file-ops',
  },
  {
    name: 'weather-tools',
    description: 'Look up the weather forecast for a place and date, and explain what it means for outdoor plans.',
    path: '/skills/weather-tools',
  },
];
const tools = ['skill_load', 'skill_read_file', 'skill_search'];

interface Render {
  format: CatalogFormat;
  tokens: number;
}

/**
 * Renders in a fresh Node process (the tokenizer's ranks, once loaded, stay for the life of a
 * process) and says what came out and whether gpt-tokenizer was loaded to get there.
 */
function renderInFreshProcess(renders: readonly Render[]): { texts: string[]; tokenizerLoaded: boolean } {
  const catalogModule = new URL('./catalog.ts', import.meta.url).pathname;
  const script = `
    const { default: Module } = await import('node:module');
    const { renderCatalog } = await import(${JSON.stringify(catalogModule)});
    const renders = ${JSON.stringify(renders)};
    const texts = renders.map(({ format, tokens }) =>
      renderCatalog({ skills: ${JSON.stringify(skills)}, tools: ${JSON.stringify(tools)}, format, budget: { tokens } }),
    );
    const tokenizerLoaded = Object.keys(Module._cache).some((file) => file.includes('gpt-tokenizer'));
    console.log(JSON.stringify({ texts, tokenizerLoaded }));`;
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return JSON.parse(output) as { texts: string[]; tokenizerLoaded: boolean };
}

function fullCatalog(format: CatalogFormat): string {
  return renderCatalog({ skills, tools, format });
}

describe('a budgeted catalog within its UTF-8 size', () => {
  it('is accepted whole without loading the tokenizer, up to a budget of exactly its byte length', {
    timeout: 60_000,
  }, () => {
    const textBytes = Buffer.byteLength(fullCatalog('text'), 'utf8');
    const xmlBytes = Buffer.byteLength(fullCatalog('xml'), 'utf8');
    const { texts, tokenizerLoaded } = renderInFreshProcess([
      { format: 'text', tokens: 4000 },
      { format: 'xml', tokens: 4000 },
      { format: 'text', tokens: textBytes },
      { format: 'xml', tokens: xmlBytes },
    ]);
    expect(texts).toEqual([fullCatalog('text'), fullCatalog('xml'), fullCatalog('text'), fullCatalog('xml')]);
    expect(tokenizerLoaded).toBe(false);
  });

  it('is counted with the tokenizer one byte over, and comes out the same as before: whole if its tokens fit, shortened if not', {
    timeout: 60_000,
  }, () => {
    const full = fullCatalog('text');
    const bytes = Buffer.byteLength(full, 'utf8');
    const { texts, tokenizerLoaded } = renderInFreshProcess([
      { format: 'text', tokens: bytes - 1 },
      { format: 'text', tokens: 60 },
    ]);
    expect(tokenizerLoaded).toBe(true);
    // The text's tokens are far fewer than its bytes, so one byte under still fits whole.
    expect(texts[0]).toBe(full);
    expect(texts[1]).toBe(renderCatalog({ skills, tools, budget: { tokens: 60 } }));
    expect(texts[1]).not.toBe(full);
    expect(texts[1]).toContain('Other skills:');
  });
});
