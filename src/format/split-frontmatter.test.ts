import { describe, expect, it } from 'vitest';
import { splitFrontmatter } from './split-frontmatter.js';

describe('splitFrontmatter', () => {
  it('cuts YAML and body and reports their lines', () => {
    const split = splitFrontmatter('---\nname: a\ndescription: b\n---\n\n\n# Title\nText\n\n');
    expect(split).toEqual({
      kind: 'closed',
      yaml: 'name: a\ndescription: b\n',
      yamlStartLine: 2,
      closingLine: 4,
      body: '# Title\nText',
      bodyStartLine: 7,
    });
  });

  it('ignores a byte-order mark and accepts CRLF and CR-only line ends with the same line numbers', () => {
    for (const text of ['\uFEFF---\r\nname: a\r\n---\r\nBody\r\n', '---\rname: a\r---\rBody\r']) {
      expect(splitFrontmatter(text)).toMatchObject({
        kind: 'closed',
        yaml: 'name: a\n',
        closingLine: 3,
        body: 'Body',
        bodyStartLine: 4,
      });
    }
  });

  it('does not close at a --- inside a value or at a longer dash line', () => {
    const split = splitFrontmatter('---\ndescription: a --- b\nnote: |\n  x\n  ---- y\n----\n---\nBody');
    expect(split).toMatchObject({ kind: 'closed', closingLine: 7, body: 'Body' });
    expect(split.kind === 'closed' && split.yaml).toBe('description: a --- b\nnote: |\n  x\n  ---- y\n----\n');
  });

  it('tolerates trailing blanks on the delimiters and a closing line at the end of the file', () => {
    expect(splitFrontmatter('--- \nname: a\n---\t')).toMatchObject({
      kind: 'closed',
      yaml: 'name: a\n',
      body: '',
      bodyStartLine: 4,
    });
    expect(splitFrontmatter('---\n---\n')).toMatchObject({ kind: 'closed', yaml: '', closingLine: 2 });
  });

  it('tells a missing frontmatter from an unclosed one, keeping the whole text as body', () => {
    expect(splitFrontmatter('# Just markdown\n')).toEqual({
      kind: 'missing',
      body: '# Just markdown',
      bodyStartLine: 1,
    });
    expect(splitFrontmatter(' ---\nname: a\n---\n').kind).toBe('missing');
    expect(splitFrontmatter('----\nname: a\n---\n').kind).toBe('missing');
    expect(splitFrontmatter('---\nname: a\n')).toEqual({ kind: 'unclosed', body: '---\nname: a', bodyStartLine: 1 });
    expect(splitFrontmatter('---').kind).toBe('unclosed');
  });
});
