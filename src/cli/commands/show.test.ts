import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSkillTree, type SkillTree, skillMarkdown } from '../../repository/testing/skill-tree.js';
import { main } from '../main.js';

let tree: SkillTree;
beforeEach(async () => {
  tree = await createSkillTree({
    'skills/demo/SKILL.md': skillMarkdown('demo', 'Demo skill.', '# Demo\n\nDo the thing.\n'),
    'skills/demo/docs/notes.md': 'Some notes.\n',
    'skills/demo/assets/blob.bin': new Uint8Array([0xff, 0xfe, 0x00]),
    'outside.txt': 'not part of the skill',
  });
});
afterEach(() => tree.remove());

async function runShow(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (text: string) => void (stdout += text),
    stderr: (text: string) => void (stderr += text),
    cwd: tree.dir,
    env: {},
  };
  const code = await main(['show', ...args], io);
  return { code, stdout, stderr };
}

describe('skillbox show', () => {
  it('prints the body without the frontmatter', async () => {
    const result = await runShow(['demo', '--root', 'skills']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.trimEnd()).toBe('# Demo\n\nDo the thing.');
  });

  it('prints a bundled file with --file', async () => {
    expect(await runShow(['demo', '--root', 'skills', '--file', 'docs/notes.md'])).toEqual({
      code: 0,
      stdout: 'Some notes.\n',
      stderr: '',
    });
  });

  it('finds skills in the standard roots without --root', async () => {
    expect((await runShow(['demo'])).stdout).toContain('Do the thing.');
  });

  it('refuses paths that leave the skill, and says what is missing', async () => {
    const escape = await runShow(['demo', '--root', 'skills', '--file', '../../outside.txt']);
    expect(escape.code).toBe(1);
    expect(escape.stderr).toBe(
      'skillbox show: refused path "../../outside.txt" in skill "demo": ".." is not allowed; give a path inside the skill folder\n',
    );
    expect(escape.stdout).toBe('');
    const absent = await runShow(['demo', '--root', 'skills', '--file', 'docs/none.md']);
    expect(absent).toEqual({ code: 1, stdout: '', stderr: 'skillbox show: skill "demo" has no file "docs/none.md"\n' });
    const unknown = await runShow(['nope', '--root', 'skills']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('skillbox show: skill "nope" not found; `skillbox list` shows the available names\n');
    const typo = await runShow(['dmeo', '--root', 'skills']);
    expect(typo).toEqual({
      code: 1,
      stdout: '',
      stderr: 'skillbox show: skill "dmeo" not found. Did you mean demo? `skillbox list` shows the available names\n',
    });
  });

  it('does not print secrets from a skill folder that is a git checkout', async () => {
    await tree.write({
      'skills/demo/.git/config': '[remote "origin"]\n\turl = https://x-access-token:ghp_TOKEN@example.com/o/r.git\n',
      'skills/demo/.env': 'API_KEY=TOKEN\n',
    });
    const config = await runShow(['demo', '--root', 'skills', '--file', '.git/config']);
    expect(config).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'skillbox show: refused path ".git/config" in skill "demo": it goes through ".git", which is never listed or served\n',
    });
    const environment = await runShow(['demo', '--root', 'skills', '--file', '.env']);
    expect(environment.code).toBe(1);
    expect(environment.stdout + environment.stderr).not.toContain('TOKEN');
  });

  it('does not print binary files', async () => {
    const result = await runShow(['demo', '--root', 'skills', '--file', 'assets/blob.bin']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'skillbox show: assets/blob.bin of skill "demo" is not UTF-8 text (3 bytes); not printed\n',
    });
  });

  it('needs exactly one NAME', async () => {
    expect((await runShow([])).code).toBe(2);
    expect((await runShow(['a', 'b'])).stderr).toMatch(/^skillbox show: expected one NAME, got 2: a b/);
  });
});
