import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../main.js';

let temporary: string;

beforeEach(async () => {
  temporary = await mkdtemp(join(tmpdir(), 'skillbox-validate-cli-'));
});

afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

async function skill(folderName: string, frontmatter: string): Promise<string> {
  const folder = join(temporary, folderName);
  await mkdir(folder);
  await writeFile(join(folder, 'SKILL.md'), `---\n${frontmatter}\n---\nBody\n`);
  return folder;
}

async function runValidate(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (text: string) => void (stdout += text),
    stderr: (text: string) => void (stderr += text),
    cwd: temporary,
    env: {},
  };
  const code = await main(['validate', ...args], io);
  return { code, stdout, stderr };
}

describe('skillbox validate', () => {
  it('prints Valid skill for each valid path and exits 0', async () => {
    const first = await skill('first', 'name: first\ndescription: d');
    const second = await skill('second', 'name: second\ndescription: d');
    expect(await runValidate([first, join(second, 'SKILL.md')])).toEqual({
      code: 0,
      stdout: `Valid skill: ${first}\nValid skill: ${join(second, 'SKILL.md')}\n`,
      stderr: '',
    });
  });

  it('lists every error of a failed skill and exits 1 when any failed', async () => {
    const good = await skill('good', 'name: good\ndescription: d');
    const bad = await skill('bad', 'name: Bad\nextra: x\ndescription: d');
    const missing = join(temporary, 'missing');
    const result = await runValidate([good, bad, missing]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(`Valid skill: ${good}\n`);
    expect(result.stderr).toBe(
      [
        `Validation failed for ${bad}:`,
        "  - Unexpected fields in frontmatter: extra. Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.",
        "  - Skill name 'Bad' must be lowercase",
        "  - Directory name 'bad' must match skill name 'Bad'",
        `Validation failed for ${missing}:`,
        `  - Path does not exist: ${missing}`,
        '',
      ].join('\n'),
    );
  });

  it('prints warnings after their skill on standard error, each naming its skill, without failing it', async () => {
    const folder = await skill('listed', 'name: listed\ndescription: d\nallowed-tools:\n  - Read');
    const other = await skill('other', 'name: other\ndescription: d\nallowed-tools:\n  - Write');
    const clean = await skill('clean', 'name: clean\ndescription: d');
    const message = "Field 'allowed-tools' should be a space-separated string; some clients read only that form";
    expect(await runValidate([folder, clean, other])).toEqual({
      code: 0,
      stdout: `Valid skill: ${folder}\nValid skill: ${clean}\nValid skill: ${other}\n`,
      stderr: `warning: ${folder}: ${message}\nwarning: ${other}: ${message}\n`,
    });
  });

  it('prints one JSON array with --json', async () => {
    const good = await skill('good', 'name: good\ndescription: d');
    const broken = await skill('broken', 'name: broken\ndescription: Use when: asked');
    const result = await runValidate(['--json', good, broken]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual([
      { path: good, valid: true, errors: [], warnings: [] },
      {
        path: broken,
        valid: false,
        errors: [expect.stringMatching(/^Invalid YAML in frontmatter: .*\(line 3\)$/)],
        warnings: [],
      },
    ]);
  });

  it('exits 2 with the usage when no path or an unknown option is given', async () => {
    const none = await runValidate([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('skillbox validate: at least one PATH is required');
    expect(none.stderr).toContain('Usage: skillbox validate PATH... [--json]');
    const unknown = await runValidate(['--strict', temporary]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('skillbox validate: unknown option --strict.');
  });

  it('validates each skill of a folder of skills, in path order, and strictly (extra fields are errors here)', async () => {
    const good = await skill('good', 'name: good\ndescription: d');
    const manual = await skill('manual', 'name: manual\ndescription: d\ndisable-model-invocation: true');
    await mkdir(join(temporary, 'group/inner'), { recursive: true });
    await writeFile(join(temporary, 'group/inner/SKILL.md'), '---\nname: inner\ndescription: d\n---\nBody\n');
    const result = await runValidate([temporary]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(`Valid skill: ${good}\nValid skill: ${join(temporary, 'group/inner')}\n`);
    expect(result.stderr).toBe(
      `Validation failed for ${manual}:\n  - Unexpected fields in frontmatter: disable-model-invocation. Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.\n`,
    );
    const json = JSON.parse((await runValidate(['--json', temporary])).stdout) as Array<{ path: string }>;
    expect(json.map((entry) => entry.path)).toEqual([good, join(temporary, 'group/inner'), manual]);
  });

  it('fails a folder with no skill anywhere below it', async () => {
    await mkdir(join(temporary, 'empty/sub'), { recursive: true });
    expect(await runValidate([join(temporary, 'empty')])).toEqual({
      code: 1,
      stdout: '',
      stderr: `Validation failed for ${join(temporary, 'empty')}:\n  - Missing required file: SKILL.md\n`,
    });
  });

  it('passes the bundled example skills', async () => {
    const examples = ['python-math', 'file-ops', 'user-file-ops', 'weather-tools'].map((name) =>
      join(import.meta.dirname, '../../../examples/skills', name),
    );
    const result = await runValidate(examples);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});
