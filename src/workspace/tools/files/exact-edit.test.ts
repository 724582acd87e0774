import { describe, expect, it } from 'vitest';
import { changedLines } from './changed-lines.js';
import { applyExactEdit } from './exact-edit.js';
import { numberedLines } from './numbered-lines.js';

describe('applyExactEdit', () => {
  const file = 'alpha\n  beta = 1\ngamma\nbeta = 1\n';

  it('replaces the one occurrence and says on which line it was', () => {
    expect(applyExactEdit(file, 'gamma', 'delta')).toEqual({
      ok: true,
      text: 'alpha\n  beta = 1\ndelta\nbeta = 1\n',
      replacements: 1,
      firstLine: 3,
    });
  });

  it('writes $& and $1 in the new text as they are', () => {
    const result = applyExactEdit('price: X', 'X', '$& $1 $$');
    expect(result).toMatchObject({ ok: true, text: 'price: $& $1 $$' });
  });

  it('refuses an ambiguous edit naming the lines, and does it with replace_all', () => {
    const ambiguous = applyExactEdit(file, 'beta = 1', 'beta = 2');
    expect(ambiguous).toEqual({ ok: false, message: expect.stringContaining('occurs 2 times (at lines 2, 4)') });
    expect(applyExactEdit(file, 'beta = 1', 'beta = 2', { replaceAll: true })).toMatchObject({
      ok: true,
      text: 'alpha\n  beta = 2\ngamma\nbeta = 2\n',
      replacements: 2,
    });
  });

  it('points at a match that differs only in whitespace', () => {
    const result = applyExactEdit('<w:p>\n\t<w:r>text</w:r>\n</w:p>\n', '<w:p>\n    <w:r>text</w:r>', 'x');
    expect(result).toEqual({ ok: false, message: expect.stringContaining('lines 1-2 match it except for whitespace') });
  });

  it('shows the closest lines when nothing matches', () => {
    const result = applyExactEdit('title: Report 2025\nauthor: Ann\n', 'title: Report 2024', 'x');
    expect(result).toEqual({ ok: false, message: expect.stringContaining('1: title: Report 2025') });
  });

  it('refuses an empty old text and an edit that changes nothing', () => {
    expect(applyExactEdit(file, '', 'x')).toMatchObject({
      ok: false,
      message: expect.stringContaining('workspace_write'),
    });
    expect(applyExactEdit(file, 'gamma', 'gamma')).toMatchObject({
      ok: false,
      message: expect.stringContaining('change nothing'),
    });
  });
});

describe('numberedLines', () => {
  it('numbers the asked range as cat -n does, and counts the lines without the final newline', () => {
    expect(numberedLines('a\nb\nc\n', 2, 5)).toEqual({
      text: '     2\tb\n     3\tc',
      firstLine: 2,
      lastLine: 3,
      totalLines: 3,
    });
  });

  it('cuts a very long line, saying how long it was', () => {
    const { text } = numberedLines('x'.repeat(5000), 1, 1);
    expect(text).toContain('[line cut: 5000 characters]');
    expect(text.length).toBeLessThan(2100);
  });
});

describe('changedLines', () => {
  it('shows the changed region with context as one hunk', () => {
    expect(changedLines('work/a.txt', '1\n2\n3\n4\n5\n6\n', '1\n2\n3\nfour\n5\n6\n')).toBe(
      ['--- a/work/a.txt', '+++ b/work/a.txt', '@@ -2,5 +2,5 @@', ' 2', ' 3', '-4', '+four', ' 5', ' 6'].join('\n'),
    );
  });

  it('shows a new file whole', () => {
    expect(changedLines('out/n.md', undefined, 'hello\n')).toBe(
      ['--- /dev/null', '+++ b/out/n.md', '@@ -0,0 +1,2 @@', '+hello', '+'].join('\n'),
    );
  });
});
