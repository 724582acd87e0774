import { describe, expect, it } from 'vitest';
import { parseToolsSection } from './parse-tools-section.js';

describe('parseToolsSection', () => {
  it('reads the items of the section in order with their case kept', () => {
    expect(parseToolsSection('Intro\n\nTools:\n- get_Weather\n- search_city\n\nOverview\n- not_a_tool')).toEqual([
      'get_Weather',
      'search_city',
    ]);
  });

  it('starts at Tools: in any case, skips blank and # lines, and stops at the first other line', () => {
    expect(
      parseToolsSection('TOOLS:\n# Comment\n- tool_a\n\n# - old_tool\n-\n- #x\n- tool_b\nMore text\n- tool_c'),
    ).toEqual(['tool_a', 'tool_b']);
    expect(parseToolsSection('tools:\n- tool_a\nDescription: something\n- tool_b')).toEqual(['tool_a']);
    expect(parseToolsSection('Intro: text\nhttp://x\n  tOoLs: \t\n- mixed_case')).toEqual(['mixed_case']);
    // Case-blind matching is ASCII only: the long s (which upper-cases to S) does not make `tools`.
    expect(parseToolsSection('tool\u017f:\n- not_a_tool')).toEqual([]);
  });

  it('adds up several sections, keeps a repeated name once and drops inline comments', () => {
    expect(parseToolsSection('Tools:\n- a  # first\nText\nTools:\n- b\n- a')).toEqual(['a', 'b']);
  });

  it('finds nothing without a section, in a heading, or inside a fenced code block', () => {
    expect(parseToolsSection('# Body\n- a')).toEqual([]);
    expect(parseToolsSection('## Tools:\n- a')).toEqual([]);
    expect(parseToolsSection('Tools: a, b\n- a')).toEqual([]);
    expect(parseToolsSection('```markdown\nTools:\n- quoted\n```\n- after')).toEqual([]);
    expect(parseToolsSection('~~~\nTools:\n~~~\nTools:\r\n- real\r\n')).toEqual(['real']);
  });
});
