import { describe, expect, it } from 'vitest';
import type { SkillSummary } from '../repository/types.js';
import {
  maxCatalogDescriptionLength,
  minimumDescriptionLength,
  renderCatalog,
  renderCatalogWithReport,
  shortenDescription,
} from './catalog.js';
import { countTokens } from './token-counter.js';

const skills: SkillSummary[] = [
  { name: 'zeta', description: 'Last one.', path: '/skills/zeta' },
  { name: 'alpha', description: 'First one,\n  spread over lines.', path: '/skills/alpha' },
  { name: 'mid', description: 'Uses <tags> & "quotes".' },
];

describe('renderCatalog', () => {
  it('renders the text format sorted by name, one line per skill', () => {
    expect(renderCatalog({ skills, guidance: false })).toBe(
      'Available skills:\n- alpha: First one, spread over lines.\n- mid: Uses <tags> & "quotes".\n- zeta: Last one.',
    );
  });

  it('renders the client guide XML with escaped text and SKILL.md locations', () => {
    expect(
      renderCatalog({
        skills: skills.slice(0, 1).concat(skills[2]!),
        format: 'xml',
        location: 'path',
        guidance: false,
      }),
    ).toBe(
      '<available_skills>\n<skill>\n<name>\nmid\n</name>\n<description>\nUses &lt;tags&gt; &amp; &quot;quotes&quot;.\n</description>\n</skill>\n' +
        '<skill>\n<name>\nzeta\n</name>\n<description>\nLast one.\n</description>\n<location>\n/skills/zeta/SKILL.md\n</location>\n</skill>\n</available_skills>',
    );
  });

  it('is byte-identical for the same skills in any order, and empty without skills', () => {
    expect(renderCatalog({ skills: [...skills].reverse(), tools: ['skill_load'] })).toBe(
      renderCatalog({ skills, tools: ['skill_load'] }),
    );
    expect(renderCatalog({ skills: [] })).toBe('');
  });

  it('names only the registered tools in its guidance, which can be replaced', () => {
    const knowledge = renderCatalog({
      skills,
      tools: ['skill_load', 'skill_list_docs', 'skill_select_docs', 'skill_read'],
    });
    expect(knowledge).toContain('call skill_load with its name');
    expect(knowledge).toContain('No tool here runs commands');
    expect(knowledge).not.toContain('skill_run');
    const full = renderCatalog({ skills, tools: ['skill_load', 'skill_run', 'workspace_exec'] });
    expect(full).toContain('skill_run runs a command');
    expect(full).not.toContain('skill_list_docs');
    const readOnly = renderCatalog({ skills, tools: ['skill_read'] });
    expect(readOnly).toContain('call skill_read with its name');
    expect(readOnly).not.toContain('skill_load');
    expect(renderCatalog({ skills, guidance: 'Use skills wisely.' })).toMatch(
      /zeta: Last one\.\n\nUse skills wisely\.$/,
    );
  });

  describe('budget', () => {
    const many: SkillSummary[] = Array.from({ length: 12 }, (_, index) => ({
      name: `skill-${String(index).padStart(2, '0')}`,
      description: `Handles task number ${index} with care, covering every step from planning to review and the reporting afterwards.`,
    }));

    it('changes nothing when the catalog fits', () => {
      const text = renderCatalog({ skills: many, guidance: false });
      expect(renderCatalog({ skills: many, guidance: false, budget: { characters: text.length } })).toBe(text);
    });

    it('shortens descriptions first, at word boundaries, longest first', () => {
      const full = renderCatalog({ skills: many, guidance: false });
      const text = renderCatalog({ skills: many, guidance: false, budget: { characters: full.length - 200 } });
      expect(text.length).toBeLessThanOrEqual(full.length - 200);
      expect(text).not.toContain('showing');
      const lines = text.split('\n').slice(1);
      expect(lines).toHaveLength(12);
      for (const line of lines) expect(line).toMatch(/^- skill-\d\d: Handles task number \d+ with care.*…$/);
    });

    it('then lists the remaining skills by name and says so, never dropping one', () => {
      const text = renderCatalog({ skills: many, guidance: false, budget: { characters: 500 } });
      expect(text.length).toBeLessThanOrEqual(500);
      const shown = /showing (\d+) of 12 skills; the others are listed by name/.exec(text);
      expect(shown).not.toBeNull();
      for (const skill of many) expect(text).toContain(skill.name);
      expect(text).toMatch(/\nOther skills: (skill-\d\d, )*skill-11$/);
    });

    it('lists every name even when the names alone exceed the budget', () => {
      const text = renderCatalog({ skills: many, guidance: false, budget: { characters: 50 } });
      expect(text).toContain('(showing 0 of 12 skills; the others are listed by name)');
      for (const skill of many) expect(text).toContain(skill.name);
    });

    it('counts tokens with o200k', () => {
      const text = renderCatalog({ skills: many, format: 'xml', budget: { tokens: 300 }, tools: ['skill_load'] });
      expect(countTokens(text)).toBeLessThanOrEqual(300);
      expect(text.startsWith('(showing ')).toBe(true);
      for (const skill of many) expect(text).toContain(`<name>\n${skill.name}\n</name>`);
    });

    it('rejects a budget that is not a positive integer', () => {
      expect(() => renderCatalog({ skills, budget: { tokens: 0 } })).toThrow(
        'renderCatalog: option "budget.tokens" must be a positive integer; got 0',
      );
      expect(() => renderCatalog({ skills, format: 'yaml' as never, budget: { characters: 1.5 } })).toThrow(
        'renderCatalog: 2 invalid options:\n' +
          '  - "format" must be "text" or "xml"; got "yaml"\n' +
          '  - "budget.characters" must be a positive integer; got 1.5',
      );
    });
  });
});

describe('shortenDescription', () => {
  it('keeps short text and cuts long text at a word with an ellipsis', () => {
    expect(shortenDescription('short', 40)).toBe('short');
    const cut = shortenDescription('one two three four five six seven eight nine ten eleven', minimumDescriptionLength);
    expect(cut).toBe('one two three four five six seven…');
    expect([...cut].length).toBeLessThanOrEqual(minimumDescriptionLength);
  });
});

describe('renderCatalog with an oversized description', () => {
  it('cuts it to the spec limit before counting, so a budget over a 6,000-character word is quick', {
    timeout: 10_000,
  }, () => {
    const long = { name: 'long', description: 'x'.repeat(6000) };
    const full = renderCatalog({ skills: [long], guidance: false });
    expect([...full.slice('Available skills:\n- long: '.length)].length).toBe(maxCatalogDescriptionLength);
    expect(full.endsWith('…')).toBe(true);
    const budgeted = renderCatalog({ skills: [long, ...skills], guidance: false, budget: { tokens: 60 } });
    expect(countTokens(budgeted)).toBeLessThanOrEqual(60);
  });
});

describe('renderCatalogWithReport', () => {
  it('returns the text renderCatalog gives with its size, how many skills are described, and whether it is over budget', () => {
    const within = renderCatalogWithReport({ skills, guidance: false, budget: { tokens: 1000 } });
    expect(within).toEqual({
      text: renderCatalog({ skills, guidance: false }),
      tokens: countTokens(within.text),
      characters: within.text.length,
      described: 3,
      total: 3,
      overBudget: false,
      shortened: false,
      searchOffered: false,
    });
    const namesOnly = renderCatalogWithReport({ skills, guidance: false, budget: { tokens: 3 } });
    expect(namesOnly.text).toBe(renderCatalog({ skills, guidance: false, budget: { tokens: 3 } }));
    expect(namesOnly).toMatchObject({ described: 0, total: 3, overBudget: true, shortened: true });
    expect(namesOnly.tokens).toBeGreaterThan(3);
    expect(renderCatalogWithReport({ skills, guidance: false, budget: { characters: 20 } })).toMatchObject({
      described: 0,
      overBudget: true,
    });
    expect(renderCatalogWithReport({ skills: [] })).toEqual({
      text: '',
      tokens: 0,
      characters: 0,
      described: 0,
      total: 0,
      overBudget: false,
      shortened: false,
      searchOffered: false,
    });
  });

  it('shows names with whitespace or control characters on one line', () => {
    const odd = [
      { name: 'two\nlines', description: 'Injected.' },
      { name: 'tab\tand\u0007bell', description: 'Odd.' },
    ];
    expect(renderCatalog({ skills: odd, guidance: false })).toBe(
      'Available skills:\n- tab and bell: Odd.\n- two lines: Injected.',
    );
    expect(renderCatalog({ skills: odd, format: 'xml', guidance: false })).toContain('<name>\ntwo lines\n</name>');
  });
});
