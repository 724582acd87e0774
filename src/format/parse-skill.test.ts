import { describe, expect, it } from 'vitest';
import { SkillboxError } from '../errors.js';
import { SkillParseError } from './errors.js';
import { parseSkillMarkdown } from './parse-skill.js';

function skill(frontmatter: string, body = '# Body\n'): string {
  return `---\n${frontmatter}\n---\n${body}`;
}

function parseError(run: () => unknown): SkillParseError {
  try {
    run();
  } catch (error) {
    if (error instanceof SkillParseError) return error;
    throw error;
  }
  throw new Error('expected a SkillParseError');
}

describe('parseSkillMarkdown', () => {
  it('reads every field of a well-formed skill without warnings', () => {
    const text = skill(
      'name: pdf-tools\ndescription: Fill PDF forms.\nlicense: MIT\ncompatibility: Requires qpdf\nallowed-tools: Bash(qpdf:*) Read\nmetadata:\n  author: example\n  version: "1.0"',
      'Intro\n\nTools:\n- fill_form\n',
    );
    const parsed = parseSkillMarkdown(text, { folderName: 'pdf-tools', file: '/s/pdf-tools/SKILL.md' });
    expect(parsed).toEqual({
      name: 'pdf-tools',
      description: 'Fill PDF forms.',
      body: 'Intro\n\nTools:\n- fill_form',
      tools: ['fill_form'],
      allowedTools: ['Bash(qpdf:*)', 'Read'],
      license: 'MIT',
      compatibility: 'Requires qpdf',
      metadata: { author: 'example', version: '1.0' },
      frontmatter: {
        name: 'pdf-tools',
        description: 'Fill PDF forms.',
        license: 'MIT',
        compatibility: 'Requires qpdf',
        'allowed-tools': 'Bash(qpdf:*) Read',
        metadata: { author: 'example', version: '1.0' },
      },
      bodyStartLine: 11,
      warnings: [],
    });
  });

  it('accepts bytes with a BOM and CRLF or CR-only line ends', () => {
    const crlf = new TextEncoder().encode('\uFEFF---\r\nname: a\r\ndescription: d\r\n---\r\nBody\r\n');
    expect(parseSkillMarkdown(crlf, { folderName: 'a' })).toMatchObject({
      name: 'a',
      body: 'Body',
      bodyStartLine: 5,
      warnings: [],
    });
    expect(parseSkillMarkdown('---\rname: a\rdescription: d\r---\rBody', { folderName: 'a' })).toMatchObject({
      body: 'Body',
      warnings: [],
    });
  });

  it('replaces invalid UTF-8 and warns instead of skipping', () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('---\nname: a\ndescription: caf'),
      0xe9,
      ...new TextEncoder().encode('\n---\nB'),
    ]);
    const parsed = parseSkillMarkdown(bytes, { folderName: 'a' });
    expect(parsed.description).toBe('caf\uFFFD');
    expect(parsed.warnings).toEqual(['SKILL.md is not valid UTF-8; invalid bytes were replaced with U+FFFD']);
  });

  it('gives block scalars their real text', () => {
    const parsed = parseSkillMarkdown(
      skill(
        'name: a\ndescription: >\n  Folded one.\n  Folded two.\nlicense: |\n  Line one.\n  Line two.\ncompatibility: |-\n  Keep\n  lines',
      ),
      {
        folderName: 'a',
      },
    );
    expect(parsed.description).toBe('Folded one. Folded two.');
    expect(parsed.license).toBe('Line one.\nLine two.\n');
    expect(parsed.compatibility).toBe('Keep\nlines');
  });

  it('keeps a --- inside a value in the frontmatter', () => {
    const parsed = parseSkillMarkdown(skill('name: a\ndescription: |\n  before\n  ---x\n  after'), { folderName: 'a' });
    expect(parsed.description).toBe('before\n---x\nafter');
    expect(parsed.body).toBe('# Body');
  });

  it('accepts flow lists and reads allowed-tools from them', () => {
    const parsed = parseSkillMarkdown(skill('name: a\ndescription: d\nallowed-tools: [Read, "Bash(git:*)"]'), {
      folderName: 'a',
    });
    expect(parsed.allowedTools).toEqual(['Read', 'Bash(git:*)']);
    expect(parsed.warnings).toEqual([]);
  });

  it('repairs a plain value holding ": " with the colon fallback and warns', () => {
    const text = skill('name: a\ndescription: Use this skill when: the user asks\n  about PDFs # note\nlicense: MIT');
    const parsed = parseSkillMarkdown(text, { folderName: 'a' });
    expect(parsed.description).toBe('Use this skill when: the user asks about PDFs');
    expect(parsed.license).toBe('MIT');
    expect(parsed.warnings).toEqual([
      "line 3: the value of 'description' holds ': ' and is not valid YAML unquoted; it was read as a quoted string",
    ]);
  });

  it('leaves block scalars alone when repairing', () => {
    const text = skill('name: a\ndescription: Use when: asked\nlicense: |\n  Terms: see: LICENSE');
    const parsed = parseSkillMarkdown(text, { folderName: 'a' });
    expect(parsed.license).toBe('Terms: see: LICENSE\n');
    expect(parsed.description).toBe('Use when: asked');
  });

  it('skips YAML that stays broken after the fallback, naming file and line', () => {
    const error = parseError(() =>
      parseSkillMarkdown(skill('name: a\ndescription: d\nbroken: [x'), { file: '/s/a/SKILL.md' }),
    );
    expect(error).toBeInstanceOf(SkillboxError);
    expect(error.code).toBe('SKILL_PARSE_ERROR');
    expect(error.file).toBe('/s/a/SKILL.md');
    expect(error.reason).toMatch(/^Invalid YAML in frontmatter: /);
    expect(error.line).toBeGreaterThanOrEqual(4);
    expect(error.message).toMatch(/^\/s\/a\/SKILL\.md:\d+: Invalid YAML in frontmatter: /);
  });

  it('skips with a reason when there is no frontmatter, it is unclosed, or it is not a mapping', () => {
    expect(parseError(() => parseSkillMarkdown('# Title\n', { file: 'x/SKILL.md' })).message).toBe(
      'x/SKILL.md:1: SKILL.md must start with YAML frontmatter (---); without it there is no description',
    );
    expect(parseError(() => parseSkillMarkdown('---\nname: a\n')).reason).toBe(
      'SKILL.md frontmatter not properly closed with ---',
    );
    const list = parseError(() => parseSkillMarkdown('---\n- a\n- b\n---\n'));
    expect(list.reason).toBe('SKILL.md frontmatter must be a YAML mapping');
    expect(list.line).toBe(2);
  });

  it('skips a missing or empty description and loads one that is too long with a warning', () => {
    expect(parseError(() => parseSkillMarkdown(skill('name: a'))).reason).toBe(
      'Missing required field in frontmatter: description',
    );
    expect(parseError(() => parseSkillMarkdown('---\n---\n')).reason).toBe(
      'Missing required field in frontmatter: description',
    );
    const empty = parseError(() => parseSkillMarkdown(skill('name: a\n\ndescription: "  "')));
    expect(empty.reason).toBe("Field 'description' must be a non-empty string");
    expect(empty.line).toBe(4);
    expect(parseError(() => parseSkillMarkdown(skill('name: a\ndescription:\n  - x'))).reason).toBe(
      "Field 'description' must be a non-empty string",
    );
    const long = parseSkillMarkdown(skill(`name: a\ndescription: ${'😀'.repeat(1025)}`), { folderName: 'a' });
    expect(long.warnings).toEqual(['Description exceeds 1024 character limit (1025 chars)']);
  });

  it('counts lengths in code points, so 1024 emoji are within the limit', () => {
    const parsed = parseSkillMarkdown(skill(`name: a\ndescription: ${'😀'.repeat(1024)}`), { folderName: 'a' });
    expect(parsed.warnings).toEqual([]);
  });

  it('warns and loads when the name breaks the rules or differs from its folder', () => {
    const parsed = parseSkillMarkdown(skill('name: PDF--Tools\ndescription: d'), { folderName: 'pdf' });
    expect(parsed.name).toBe('PDF--Tools');
    expect(parsed.warnings).toEqual([
      "Skill name 'PDF--Tools' must be lowercase",
      'Skill name cannot contain consecutive hyphens',
      "Directory name 'pdf' must match skill name 'PDF--Tools'",
    ]);
  });

  it('normalises a Unicode name with NFKC and compares it with the folder the same way', () => {
    const parsed = parseSkillMarkdown(skill('name: cafe\u0301\ndescription: d'), { folderName: 'caf\u00e9' });
    expect(parsed.name).toBe('caf\u00e9');
    expect(parsed.warnings).toEqual([]);
    expect(parseSkillMarkdown(skill('name: 技能\ndescription: d'), { folderName: '技能' }).warnings).toEqual([]);
  });

  it('falls back to the folder name when the name is missing or empty, and reads numbers as written', () => {
    const missing = parseSkillMarkdown(skill('description: d'), { folderName: 'folder-name' });
    expect(missing.name).toBe('folder-name');
    expect(missing.warnings).toEqual(['Missing required field in frontmatter: name']);
    expect(parseSkillMarkdown(skill('name:\ndescription: d'), { folderName: 'f' }).name).toBe('f');
    const numeric = parseSkillMarkdown(skill('name: 2048\ndescription: 1.10'), { folderName: '2048' });
    expect(numeric).toMatchObject({ name: '2048', description: '1.10', warnings: [] });
    expect(parseError(() => parseSkillMarkdown(skill('description: d'))).reason).toMatch(/no name and no folder name/);
  });

  it('warns about unknown fields, duplicate keys and fields of the wrong type, and still loads', () => {
    const parsed = parseSkillMarkdown(
      skill(
        'name: a\ndescription: first\ndescription: second\nwhen_to_use: x\nlicense: [MIT]\nmetadata: text\nallowed-tools: {Read: 1}\ncompatibility: 3',
      ),
      { folderName: 'a' },
    );
    expect(parsed.description).toBe('second');
    expect(parsed.compatibility).toBe('3');
    expect(parsed.license).toBeUndefined();
    expect(parsed.metadata).toBeUndefined();
    expect(parsed.allowedTools).toEqual([]);
    expect(parsed.warnings).toEqual([
      "Duplicate field 'description' in frontmatter; the last one is used",
      "Unexpected fields in frontmatter: when_to_use. Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.",
      "Field 'allowed-tools' must be a string or a list of strings; ignored",
      "Field 'license' must be a string; ignored",
      "Field 'metadata' must be a mapping; ignored",
    ]);
  });

  it('does not call the Claude Code fields skillbox knows unexpected when loading, and still names any other', () => {
    const parsed = parseSkillMarkdown(
      skill(
        'name: a\ndescription: d\ndisable-model-invocation: true\nuser-invocable: false\nargument-hint: "[file]"\nmodel: sonnet\nwhen_to_use: x',
      ),
      { folderName: 'a' },
    );
    expect(parsed.warnings).toEqual([
      "Unexpected fields in frontmatter: when_to_use. Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.",
    ]);
    expect(parsed.frontmatter['user-invocable']).toBe(false);
  });

  it('parses a 5 MB SKILL.md', () => {
    const body = `Tools:\n- big_tool\n\n${'A line of body text that goes on for a while.\n'.repeat(110_000)}`;
    expect(body.length).toBeGreaterThan(5_000_000);
    const parsed = parseSkillMarkdown(skill('name: big\ndescription: d', body), { folderName: 'big' });
    expect(parsed.tools).toEqual(['big_tool']);
    expect(parsed.body.length).toBe(body.trimEnd().length);
  });

  it('refuses a YAML alias bomb instead of expanding it', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'description: d',
    ];
    expect(parseError(() => parseSkillMarkdown(skill(bomb.join('\n')), { folderName: 'a' })).reason).toMatch(
      /^Invalid YAML in frontmatter: /,
    );
  });
});
