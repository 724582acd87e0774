import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';

let folder: string;
beforeEach(async () => {
  folder = await realpath(await mkdtemp(join(tmpdir(), 'skillbox-roots-cli-')));
});
afterEach(() => rm(folder, { recursive: true, force: true }));

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (text: string) => void (stdout += text), stderr: (text: string) => void (stderr += text), cwd: folder, env: { HOME: folder } };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

describe('commands given a --root that does not exist', () => {
  it('fail with exit 1 naming the root, before doing anything', async () => {
    const root = ['--root', 'typo-skills'];
    for (const argv of [['list', ...root], ['show', 'demo', ...root], ['prompt', ...root], ['tokens', ...root], ['run', 'demo', ...root, '--', 'true']]) {
      const result = await run(argv);
      expect(result, argv[0]).toEqual({ code: 1, stdout: '', stderr: `skillbox ${argv[0]}: skills root ${folder}/typo-skills does not exist\n` });
    }
  });

  it('stay silent about missing standard roots', async () => {
    expect(await run(['list'])).toEqual({ code: 0, stdout: 'No skills found in the standard roots (none exist).\n', stderr: '' });
  });
});
