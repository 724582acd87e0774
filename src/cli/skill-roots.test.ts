import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsSkillRepository } from '../repository/fs-skill-repository.js';
import { main } from './main.js';
import { describeLeftOutSkills } from './skill-roots.js';

let folder: string;
beforeEach(async () => {
  folder = await realpath(await mkdtemp(join(tmpdir(), 'skillbox-roots-cli-')));
});
afterEach(() => rm(folder, { recursive: true, force: true }));

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (text: string) => void (stdout += text),
    stderr: (text: string) => void (stderr += text),
    cwd: folder,
    env: { HOME: folder },
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

describe('commands given a --root that does not exist', () => {
  it('fail with exit 1 naming the root, before doing anything', async () => {
    const root = ['--root', 'typo-skills'];
    for (const argv of [
      ['list', ...root],
      ['show', 'demo', ...root],
      ['prompt', ...root],
      ['tokens', ...root],
      ['run', 'demo', ...root, '--', 'true'],
    ]) {
      const result = await run(argv);
      expect(result, argv[0]).toEqual({
        code: 1,
        stdout: '',
        stderr: `skillbox ${argv[0]}: skills root ${folder}/typo-skills does not exist\n`,
      });
    }
  });

  it('stay silent about missing standard roots', async () => {
    const result = await run(['list']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^No skills found in the standard roots, none of which exists: .*\.agents\/skills/);
  });
});

describe('what mcp and chat say about skills the model will not get', () => {
  it('counts skipped, shadowed and hidden skills with their reasons', async () => {
    const write = async (path: string, text: string) => {
      await mkdir(join(folder, path, '..'), { recursive: true });
      await writeFile(join(folder, path), text);
    };
    await write('a/ok/SKILL.md', '---\nname: ok\ndescription: d\n---\n');
    await write('a/broken/SKILL.md', '---\nname: broken\n---\n');
    await write('a/manual/SKILL.md', '---\nname: manual\ndescription: d\ndisable-model-invocation: true\n---\n');
    await write('b/ok/SKILL.md', '---\nname: ok\ndescription: copy\n---\n');
    const repository = await FsSkillRepository.open({ roots: [join(folder, 'a'), join(folder, 'b')] });
    expect(await describeLeftOutSkills(repository, await repository.list(), 'mcp')).toBe(
      'skillbox mcp: 1 skill skipped (cannot be loaded):\n' +
        `  ${folder}/a/broken/SKILL.md: line 1: Missing required field in frontmatter: description\n` +
        'skillbox mcp: 1 skill shadowed (an earlier skill has the name):\n' +
        `  ${folder}/b/ok: "ok" is ${folder}/a/ok\n` +
        'skillbox mcp: 1 skill hidden from the model:\n' +
        '  manual: disable-model-invocation: true\n',
    );
    const clean = await FsSkillRepository.open({ roots: [join(folder, 'b')] });
    expect(await describeLeftOutSkills(clean, await clean.list(), 'chat')).toBe('');
  });
});
