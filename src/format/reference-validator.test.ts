/**
 * The reference validator's (agentskills/agentskills `skills-ref`) test cases, ported: its
 * 21 validator tests and 15 parser tests with their exact messages. The 4 `to-prompt` tests
 * concern catalog rendering and live with the disclosure layer's catalog.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillParseError } from './errors.js';
import { findSkillMarkdown } from './find-skill-markdown.js';
import { parseSkillMarkdown } from './parse-skill.js';
import { parseSkillDirectory } from './parse-skill-directory.js';
import { validateSkillDirectory } from './validate-skill-directory.js';
import { validateSkillText } from './validate-skill-text.js';

let temporary: string;

beforeEach(async () => {
  temporary = await mkdtemp(join(tmpdir(), 'skillbox-reference-'));
});

afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

async function skillFolder(folderName: string, content: string, fileName = 'SKILL.md'): Promise<string> {
  const folder = join(temporary, folderName);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, fileName), content);
  return folder;
}

async function errorsFor(folderName: string, frontmatter: string): Promise<string[]> {
  const result = await validateSkillDirectory(await skillFolder(folderName, `---\n${frontmatter}\n---\nBody\n`));
  expect(result.valid).toBe(result.errors.length === 0);
  return result.errors;
}

describe('skills-ref test_validator.py', () => {
  it('valid_skill', async () => {
    expect(await errorsFor('my-skill', 'name: my-skill\ndescription: A test skill')).toEqual([]);
  });

  it('nonexistent_path', async () => {
    const missing = join(temporary, 'nonexistent');
    expect((await validateSkillDirectory(missing)).errors).toEqual([`Path does not exist: ${missing}`]);
  });

  it('not_a_directory', async () => {
    const file = join(temporary, 'file.txt');
    await writeFile(file, 'test');
    expect((await validateSkillDirectory(file)).errors).toEqual([`Not a directory: ${file}`]);
  });

  it('missing_skill_md', async () => {
    const folder = join(temporary, 'empty-skill');
    await mkdir(folder);
    expect((await validateSkillDirectory(folder)).errors).toEqual(['Missing required file: SKILL.md']);
  });

  it('invalid_name_uppercase', async () => {
    expect(await errorsFor('MySkill', 'name: MySkill\ndescription: A test skill')).toEqual([
      "Skill name 'MySkill' must be lowercase",
    ]);
  });

  it('name_too_long', async () => {
    const name = 'a'.repeat(70);
    expect(await errorsFor(name, `name: ${name}\ndescription: A test skill`)).toEqual([
      `Skill name '${name}' exceeds 64 character limit (70 chars)`,
    ]);
  });

  it('name_leading_hyphen', async () => {
    expect(await errorsFor('-my-skill', 'name: -my-skill\ndescription: A test skill')).toEqual([
      'Skill name cannot start or end with a hyphen',
    ]);
  });

  it('name_consecutive_hyphens', async () => {
    expect(await errorsFor('my--skill', 'name: my--skill\ndescription: A test skill')).toEqual([
      'Skill name cannot contain consecutive hyphens',
    ]);
  });

  it('name_invalid_characters', async () => {
    expect(await errorsFor('my_skill', 'name: my_skill\ndescription: A test skill')).toEqual([
      "Skill name 'my_skill' contains invalid characters. Only letters, digits, and hyphens are allowed.",
    ]);
  });

  it('name_directory_mismatch', async () => {
    expect(await errorsFor('wrong-name', 'name: correct-name\ndescription: A test skill')).toEqual([
      "Directory name 'wrong-name' must match skill name 'correct-name'",
    ]);
  });

  it('unexpected_fields', async () => {
    expect(
      await errorsFor('my-skill', 'name: my-skill\ndescription: A test skill\nunknown_field: should not be here'),
    ).toEqual([
      "Unexpected fields in frontmatter: unknown_field. Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.",
    ]);
  });

  it('valid_with_all_fields', async () => {
    expect(
      await errorsFor('my-skill', 'name: my-skill\ndescription: A test skill\nlicense: MIT\nmetadata:\n  author: Test'),
    ).toEqual([]);
  });

  it('allowed_tools_accepted', async () => {
    expect(
      await errorsFor('my-skill', 'name: my-skill\ndescription: A test skill\nallowed-tools: Bash(jq:*) Bash(git:*)'),
    ).toEqual([]);
  });

  it('i18n_chinese_name', async () => {
    expect(await errorsFor('技能', 'name: 技能\ndescription: A skill with Chinese name')).toEqual([]);
  });

  it('i18n_russian_name_with_hyphens', async () => {
    expect(await errorsFor('мой-навык', 'name: мой-навык\ndescription: A skill with Russian name')).toEqual([]);
  });

  it('i18n_russian_lowercase_valid', async () => {
    expect(await errorsFor('навык', 'name: навык\ndescription: A skill with Russian lowercase name')).toEqual([]);
  });

  it('i18n_russian_uppercase_rejected', async () => {
    expect(await errorsFor('НАВЫК', 'name: НАВЫК\ndescription: A skill with Russian uppercase name')).toEqual([
      "Skill name 'НАВЫК' must be lowercase",
    ]);
  });

  it('description_too_long', async () => {
    expect(await errorsFor('my-skill', `name: my-skill\ndescription: ${'x'.repeat(1100)}`)).toEqual([
      'Description exceeds 1024 character limit (1100 chars)',
    ]);
  });

  it('valid_compatibility', async () => {
    expect(
      await errorsFor('my-skill', 'name: my-skill\ndescription: A test skill\ncompatibility: Requires Python 3.11+'),
    ).toEqual([]);
  });

  it('compatibility_too_long', async () => {
    expect(
      await errorsFor('my-skill', `name: my-skill\ndescription: A test skill\ncompatibility: ${'x'.repeat(550)}`),
    ).toEqual(['Compatibility exceeds 500 character limit (550 chars)']);
  });

  it('nfkc_normalization', async () => {
    expect(await errorsFor('caf\u00e9', 'name: cafe\u0301\ndescription: A test skill')).toEqual([]);
  });
});

describe('skills-ref test_parser.py', () => {
  it('parse_valid_frontmatter', () => {
    const parsed = parseSkillMarkdown(
      '---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n\nInstructions here.\n',
    );
    expect(parsed.name).toBe('my-skill');
    expect(parsed.description).toBe('A test skill');
    expect(parsed.body).toContain('# My Skill');
  });

  it('parse_missing_frontmatter', () => {
    expect(validateSkillText('# No frontmatter here').errors).toEqual([
      'SKILL.md must start with YAML frontmatter (---)',
    ]);
    expect(() => parseSkillMarkdown('# No frontmatter here')).toThrow(/must start with YAML frontmatter/);
  });

  it('parse_unclosed_frontmatter', () => {
    const text = '---\nname: my-skill\ndescription: A test skill\n';
    expect(validateSkillText(text).errors).toEqual(['SKILL.md frontmatter not properly closed with ---']);
    expect(() => parseSkillMarkdown(text)).toThrow(/not properly closed/);
  });

  it('parse_invalid_yaml', () => {
    const text = '---\nname: [invalid\ndescription: broken\n---\nBody here\n';
    const [error] = validateSkillText(text).errors;
    expect(error).toMatch(/^Invalid YAML in frontmatter: .*\(line \d+\)$/);
    expect(() => parseSkillMarkdown(text)).toThrow(/Invalid YAML/);
  });

  it('parse_non_dict_frontmatter', () => {
    const text = '---\n- just a list\n---\nBody\n';
    expect(validateSkillText(text).errors).toEqual(['SKILL.md frontmatter must be a YAML mapping']);
    expect(() => parseSkillMarkdown(text)).toThrow(/must be a YAML mapping/);
  });

  it('read_valid_skill (with license)', async () => {
    const folder = await skillFolder(
      'my-skill',
      '---\nname: my-skill\ndescription: A test skill\nlicense: MIT\n---\nBody\n',
    );
    const parsed = await parseSkillDirectory(folder);
    expect(parsed).toMatchObject({ name: 'my-skill', description: 'A test skill', license: 'MIT', warnings: [] });
  });

  it('read_with_metadata: scalar values are the strings written', async () => {
    const folder = await skillFolder(
      'my-skill',
      '---\nname: my-skill\ndescription: A test skill\nmetadata:\n  author: Test Author\n  version: 1.0\n---\nBody\n',
    );
    expect((await parseSkillDirectory(folder)).metadata).toEqual({ author: 'Test Author', version: '1.0' });
  });

  it('read_missing_skill_md', async () => {
    const folder = join(temporary, 'my-skill');
    await mkdir(folder);
    const failure = parseSkillDirectory(folder);
    await expect(failure).rejects.toBeInstanceOf(SkillParseError);
    await expect(failure).rejects.toThrow(`SKILL.md not found in ${folder}`);
  });

  it('read_missing_name: strict reports it; lenient loading falls back to the folder name', async () => {
    const text = '---\ndescription: A test skill\n---\nBody\n';
    expect(validateSkillText(text, { folderName: 'my-skill' }).errors).toEqual([
      'Missing required field in frontmatter: name',
    ]);
    const parsed = await parseSkillDirectory(await skillFolder('my-skill', text));
    expect(parsed.name).toBe('my-skill');
    expect(parsed.warnings).toEqual(['Missing required field in frontmatter: name']);
  });

  it('read_missing_description', async () => {
    const text = '---\nname: my-skill\n---\nBody\n';
    expect(validateSkillText(text, { folderName: 'my-skill' }).errors).toEqual([
      'Missing required field in frontmatter: description',
    ]);
    await expect(parseSkillDirectory(await skillFolder('my-skill', text))).rejects.toThrow(
      /Missing required field in frontmatter: description/,
    );
  });

  it('find_skill_md_prefers_uppercase', async () => {
    const folder = await skillFolder('my-skill', 'upper');
    await writeFile(join(folder, 'skill.md'), 'lower');
    expect(await findSkillMarkdown(folder)).toBe(join(folder, 'SKILL.md'));
  });

  it('find_skill_md_accepts_lowercase', async () => {
    const folder = await skillFolder('my-skill', 'lower', 'skill.md');
    expect(await findSkillMarkdown(folder)).toBe(join(folder, 'skill.md'));
  });

  it('find_skill_md_returns_none_when_missing', async () => {
    const folder = join(temporary, 'my-skill');
    await mkdir(folder);
    expect(await findSkillMarkdown(folder)).toBeUndefined();
  });

  it('read_properties_with_lowercase_skill_md', async () => {
    const folder = await skillFolder(
      'my-skill',
      '---\nname: my-skill\ndescription: A test skill\n---\nBody\n',
      'skill.md',
    );
    expect(await parseSkillDirectory(folder)).toMatchObject({ name: 'my-skill', description: 'A test skill' });
    expect((await validateSkillDirectory(folder)).errors).toEqual([]);
  });

  it('read_with_allowed_tools', async () => {
    const folder = await skillFolder(
      'my-skill',
      '---\nname: my-skill\ndescription: A test skill\nallowed-tools: Bash(jq:*) Bash(git:*)\n---\nBody\n',
    );
    const parsed = await parseSkillDirectory(folder);
    expect(parsed.allowedTools).toEqual(['Bash(jq:*)', 'Bash(git:*)']);
    expect(parsed.frontmatter['allowed-tools']).toBe('Bash(jq:*) Bash(git:*)');
  });
});
