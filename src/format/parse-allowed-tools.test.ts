import { describe, expect, it } from 'vitest';
import { parseAllowedTools } from './parse-allowed-tools.js';

describe('parseAllowedTools', () => {
  it('splits a space-separated string (the specification) without breaking parentheses', () => {
    expect(parseAllowedTools('Bash(git:*) Bash(jq:*)  Read')).toEqual(['Bash(git:*)', 'Bash(jq:*)', 'Read']);
    expect(parseAllowedTools('Bash(git add:*) Read')).toEqual(['Bash(git add:*)', 'Read']);
  });

  it('splits a comma-separated string at the commas only', () => {
    expect(parseAllowedTools('Read, Bash(npm run test:*), Write')).toEqual(['Read', 'Bash(npm run test:*)', 'Write']);
    expect(parseAllowedTools('Bash(a,b) Read')).toEqual(['Bash(a,b)', 'Read']);
  });

  it('takes a YAML list as it is and ignores what is not a list of names', () => {
    expect(parseAllowedTools(['Read', ' Grep ', '', 7])).toEqual(['Read', 'Grep', '7']);
    expect(parseAllowedTools(undefined)).toEqual([]);
    expect(parseAllowedTools({ Read: true })).toEqual([]);
    expect(parseAllowedTools('')).toEqual([]);
  });
});
