import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corpusRoot, hasCorpus } from '../../test/support/corpus.js';
import { parseSkillMarkdown } from './parse-skill.js';
import { parseSkillMarkdownDeferringBody } from './parse-skill-deferring-body.js';
import type { ParsedSkill } from './types.js';

/**
 * Both parses of the same bytes, as plain data. The deferred one parses a copy that is overwritten
 * right after, as a repository reusing its read buffer does, and is completed from the bytes.
 */
function bothParses(bytes: Buffer, folderName = 'demo'): [unknown, unknown] {
  const outcome = (parse: () => ParsedSkill) => {
    try {
      return { parsed: structuredClone(parse()) };
    } catch (error) {
      return { error: (error as Error).message, line: (error as { line?: number }).line };
    }
  };
  return [
    outcome(() => {
      const scratch = Buffer.from(bytes);
      const deferred = parseSkillMarkdownDeferringBody(scratch, { file: '/s/SKILL.md', folderName });
      scratch.fill(0x2d);
      return deferred.complete(bytes);
    }),
    outcome(() => parseSkillMarkdown(bytes, { file: '/s/SKILL.md', folderName })),
  ];
}

describe('parseSkillMarkdownDeferringBody', () => {
  const cases: Record<string, Buffer> = {
    'LF line ends, a Tools section': Buffer.from(
      '---\nname: demo\ndescription: Does things.\n---\n\n# Demo\n\nTools:\n- run_it\n- other\n',
    ),
    'CRLF line ends and a byte-order mark': Buffer.from(
      '\uFEFF---\r\nname: demo\r\ndescription: Does things.\r\n---\r\n\r\nBody\r\nTools:\r\n- a\r\n',
    ),
    'lone CR line ends': Buffer.from('---\rname: demo\rdescription: CR only.\r---\rBody line\r'),
    'a closing line with trailing spaces and no body': Buffer.from('---\nname: demo\ndescription: d\n---  '),
    'a `---x` line before the real closing line': Buffer.from(
      '---\nname: demo\ndescription: |\n  text\n---x\n---\nBody\n',
    ),
    'invalid UTF-8 in the body only': Buffer.concat([
      Buffer.from('---\nname: demo\ndescription: d\n---\nBody '),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('\n'),
    ]),
    'invalid UTF-8 in the frontmatter': Buffer.concat([
      Buffer.from('---\nname: demo\ndescription: bad '),
      Buffer.from([0xc3]),
      Buffer.from('\n---\nBody\n'),
    ]),
    'multi-byte text around the closing line': Buffer.from('---\nname: demo\ndescription: Ünïcødé ✓\n---\n日本語\n'),
    'an empty frontmatter': Buffer.from('---\n---\nBody\n'),
    'no frontmatter': Buffer.from('# Just a body\n'),
    'an unclosed frontmatter': Buffer.from('---\nname: demo\ndescription: d\n'),
    'LF frontmatter, CRLF body': Buffer.from('---\nname: demo\ndescription: d\n---\r\nBody\r\nTools:\r\n- a\r\n'),
    'LF frontmatter closed by a CRLF line': Buffer.from('---\nname: demo\ndescription: d\n---  \r\nBody\n'),
    'a CR inside the frontmatter only': Buffer.from('---\nname: demo\rdescription: d\n---\nBody\n'),
    'a CR-ended opening line, LF later': Buffer.from('---\rname: demo\ndescription: d\n---\nBody\n'),
    'the closing line last, without a line break': Buffer.from('---\nname: demo\ndescription: d\n---'),
    'warnings of every kind, in order, and invalid UTF-8 in the body': Buffer.concat([
      Buffer.from(
        '---\nname: Demo_X\ndescription: Use when: asked\nlicense:\n  - a\nextra: y\nmetadata: [a]\nallowed-tools:\n  a: b\n---\nBody ',
      ),
      Buffer.from([0xff]),
      Buffer.from('\n'),
    ]),
    'YAML that needs the library': Buffer.from(
      '---\nname: demo\ndescription: >\n  folded\n  text\nmetadata:\n  tags: [a, b]\n---\nBody\n',
    ),
  };
  for (const [name, bytes] of Object.entries(cases)) {
    it(`gives what parseSkillMarkdown gives: ${name}`, () => {
      const [deferred, full] = bothParses(bytes);
      expect(deferred).toEqual(full);
    });
  }

  it('gives what parseSkillMarkdown gives for any mix of line breaks and delimiter-like lines', () => {
    const line = fc.constantFrom(
      '---',
      '--- ',
      '---x',
      '----',
      'name: demo',
      'description: d',
      'Tools:',
      '- a',
      'body',
      '',
    );
    const lineBreak = fc.constantFrom('\n', '\n', '\r\n', '\r');
    fc.assert(
      fc.property(fc.array(fc.tuple(line, lineBreak), { maxLength: 12 }), fc.boolean(), (lines, finalBreak) => {
        const text = lines.map(([content, ending], index) =>
          index === lines.length - 1 && !finalBreak ? content : `${content}${ending}`,
        );
        const [deferred, full] = bothParses(Buffer.from(`---\n${text.join('')}`));
        expect(deferred).toEqual(full);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps nothing of the bytes it parsed: the body comes from the bytes given to complete(), once', () => {
    const bytes = Buffer.from('---\nname: demo\ndescription: d\n---\nBody\nTools:\n- a\n');
    const deferred = parseSkillMarkdownDeferringBody(bytes);
    expect(deferred.needsBytes).toBe(true);
    // The caller reuses its buffer for the next file: what was read stays as it was.
    bytes.fill(0x20);
    expect([deferred.name, deferred.description, deferred.frontmatter]).toEqual([
      'demo',
      'd',
      { name: 'demo', description: 'd' },
    ]);
    expect(() => deferred.complete()).toThrow(/bytes are needed/);
    const completed = deferred.complete(Buffer.from('---\nname: demo\ndescription: d\n---\nBody\nTools:\n- a\n'));
    expect(completed.body).toBe('Body\nTools:\n- a');
    expect(completed.tools).toEqual(['a']);
    expect(deferred.needsBytes).toBe(false);
    expect(deferred.complete()).toBe(completed);
  });

  it('says whether the model may see the skill, reading a plain frontmatter only when it could hide it', () => {
    const visible = (frontmatter: string) =>
      parseSkillMarkdownDeferringBody(Buffer.from(`---\nname: a\ndescription: d\n${frontmatter}---\nBody\n`))
        .modelInvocable;
    expect(visible('')).toBeUndefined();
    expect(visible('metadata:\n  author: me\n')).toBeUndefined();
    expect(visible('disable-model-invocation: true\n')).toBe(false);
    expect(visible('disable-model-invocation: false\n')).toBeUndefined();
    expect(visible('metadata:\n  internal: "True"\n')).toBe(false);
    expect(visible('metadata:\n  internal: true\n  author: me\n')).toBe(false);
  });

  it('needs no bytes to complete a file it parsed whole (no closing delimiter line)', () => {
    const bytes = Buffer.from('# no frontmatter at all\n');
    expect(() => parseSkillMarkdownDeferringBody(bytes)).toThrow(/frontmatter/);
    const whole = parseSkillMarkdownDeferringBody(Buffer.from('---\nname: demo\ndescription: d\n--- \nBody'));
    expect(whole.complete(Buffer.from('---\nname: demo\ndescription: d\n--- \nBody')).body).toBe('Body');
  });

  it('renames: the new name, earlier warnings escaped, the rename warning last', () => {
    const deferred = parseSkillMarkdownDeferringBody(Buffer.from('---\nname: Bad_Name\ndescription: d\n---\nBody\n'), {
      folderName: 'bad-name',
    });
    const renamed = deferred.renamed('bad-name', 'renamed', (text) => `<${text}>`);
    expect(renamed.name).toBe('bad-name');
    const bytes = Buffer.from('---\nname: Bad_Name\ndescription: d\n---\nBody\n');
    const original = deferred.complete(bytes);
    expect(original.name).toBe('Bad_Name');
    expect(renamed.complete(bytes)).toEqual({
      ...original,
      name: 'bad-name',
      warnings: [...original.warnings.map((text) => `<${text}>`), 'renamed'],
    });
    expect(original.warnings.length).toBeGreaterThan(0);
  });

  describe.runIf(hasCorpus)('on the corpus', () => {
    it('gives what parseSkillMarkdown gives for every SKILL.md', async () => {
      const entries = await readdir(corpusRoot, { recursive: true, withFileTypes: true });
      const files = entries
        .filter((entry) => entry.isFile() && entry.name === 'SKILL.md')
        .map((entry) => join(entry.parentPath, entry.name));
      expect(files.length).toBeGreaterThan(600);
      for (const file of files) {
        const [deferred, full] = bothParses(await readFile(file), basename(dirname(file)));
        expect(deferred, file).toEqual(full);
      }
    });
  });
});
