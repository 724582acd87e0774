import { describe, expect, it } from 'vitest';
import { validateSkillText } from './validate-skill-text.js';

const valid = 'name: my-skill\ndescription: A test skill';

function check(frontmatter: string, body = 'Body\n') {
  return validateSkillText(`---\n${frontmatter}\n---\n${body}`, { folderName: 'my-skill', file: 'my-skill/SKILL.md' });
}

describe('validateSkillText (strict)', () => {
  it('reports the path it was given', () => {
    expect(check(valid)).toEqual({ path: 'my-skill/SKILL.md', valid: true, errors: [], warnings: [] });
  });

  it('applies no colon fallback: a plain value holding ": " is invalid YAML with its file line', () => {
    const result = check(`${valid}\nlicense: MIT: see LICENSE`);
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([expect.stringMatching(/^Invalid YAML in frontmatter: .*\(line 4\)$/)]);
  });

  it('refuses flow collections, anchors and duplicate keys as the reference validator does', () => {
    expect(check(`${valid}\nallowed-tools: [Read, Write]`).errors).toEqual([
      'Invalid YAML in frontmatter: flow style sequences and mappings are not allowed; use block style (line 4)',
    ]);
    expect(check(`${valid}\nmetadata: {a: b}`).errors[0]).toMatch(/flow style/);
    expect(check(`${valid}\nlicense: &l MIT`).errors[0]).toMatch(/anchors are not allowed/);
    expect(check(`${valid}\nname: other`).errors[0]).toMatch(
      /^Invalid YAML in frontmatter: Map keys must be unique \(line 4\)$/,
    );
  });

  it('reads every scalar as a string, so numbers and booleans are names and descriptions', () => {
    expect(validateSkillText('---\nname: 2048\ndescription: true\n---\n', { folderName: '2048' }).errors).toEqual([]);
  });

  it('reports every broken rule at once, in the reference order', () => {
    expect(check('name: My_Skill-\ndescription: ""\ncompatibility:\n  - a\nextra: 1\nalso: 2').errors).toEqual([
      "Unexpected fields in frontmatter: also, extra. Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.",
      "Skill name 'My_Skill-' must be lowercase",
      'Skill name cannot start or end with a hyphen',
      "Skill name 'My_Skill-' contains invalid characters. Only letters, digits, and hyphens are allowed.",
      "Directory name 'my-skill' must match skill name 'My_Skill-'",
      "Field 'description' must be a non-empty string",
      "Field 'compatibility' must be a string",
    ]);
    expect(check('description: d').errors).toEqual(['Missing required field in frontmatter: name']);
    expect(check('name:\ndescription: d').errors).toEqual(["Field 'name' must be a non-empty string"]);
  });

  it('counts lengths in code points, not UTF-16 units', () => {
    const emojiName = '😀'.repeat(64);
    expect(
      validateSkillText(`---\nname: ${emojiName}\ndescription: ${'é'.repeat(1024)}\n---\n`, { folderName: emojiName })
        .errors,
    ).toEqual([
      `Skill name '${emojiName}' contains invalid characters. Only letters, digits, and hyphens are allowed.`,
    ]);
    expect(check(`${valid}\ncompatibility: ${'🙂'.repeat(501)}`).errors).toEqual([
      'Compatibility exceeds 500 character limit (501 chars)',
    ]);
  });

  it('counts a block scalar description with its trailing newline, as skills-ref does', () => {
    expect(check(`name: my-skill\ndescription: |\n  ${'x'.repeat(1024)}`).errors).toEqual([
      'Description exceeds 1024 character limit (1025 chars)',
    ]);
  });

  it('ignores a byte-order mark with a warning and accepts CRLF', () => {
    const result = validateSkillText(`\uFEFF---\r\n${valid.replace('\n', '\r\n')}\r\n---\r\nBody\r\n`, {
      folderName: 'my-skill',
    });
    expect(result).toMatchObject({
      valid: true,
      warnings: ['SKILL.md starts with a byte-order mark; some tools (skills-ref among them) reject it'],
    });
  });

  it('does not end the frontmatter at a --- inside a value', () => {
    expect(check('name: my-skill\ndescription: |\n  one\n  ---\n  two').errors).toEqual([]);
  });

  it('fails on invalid UTF-8', () => {
    const bytes = new Uint8Array([...new TextEncoder().encode(`---\n${valid}\n---\n`), 0xff]);
    expect(validateSkillText(bytes).errors).toEqual(['SKILL.md is not valid UTF-8']);
  });

  it('warns about what the specification advises against without failing', () => {
    const result = check(
      `${valid}\ncompatibility: ""\nallowed-tools:\n  - Read\nmetadata:\n  author: me\n  nested:\n    a: b`,
      'line\n'.repeat(501),
    );
    expect(result.valid).toBe(true);
    expect(result.warnings).toEqual([
      "Field 'metadata' should map keys to string values; not a string: nested",
      "Field 'allowed-tools' should be a space-separated string; some clients read only that form",
      "Field 'compatibility' should be 1-500 characters when present",
      'SKILL.md body has 501 lines; the specification recommends under 500 (move detail into referenced files)',
    ]);
  });

  it('checks the folder name only when it is given', () => {
    expect(validateSkillText(`---\nname: anything\ndescription: d\n---\n`).valid).toBe(true);
  });
});
