import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SkillUploadServer, startSkillUploadServer } from '../../../test/support/skill-upload-server.js';
import { skillFile, writeTestFiles } from '../../hub/testing/skill-folder.js';
import { main } from '../main.js';

const apiKey = 'sk-ant-cli-SECRET-9876543210';
let project: string;
let server: SkillUploadServer;

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'skillbox-upload-cli-'));
  await writeTestFiles(join(project, 'skills'), [{ path: 'notes/SKILL.md', text: skillFile('notes') }]);
  server = await startSkillUploadServer('anthropic');
});
afterEach(async () => {
  await server.close();
  await rm(project, { recursive: true, force: true });
});

async function upload(args: string[], env: NodeJS.ProcessEnv = { ANTHROPIC_API_KEY: apiKey }) {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (text: string) => void (stdout += text),
    stderr: (text: string) => void (stderr += text),
    cwd: project,
    env,
  };
  const code = await main(['upload', ...args], io);
  return { code, stdout, stderr };
}

describe('skillbox upload', () => {
  it('uploads once, then reports unchanged without a request; the key is never printed', async () => {
    const first = await upload(['--root', 'skills', '--base-url', server.baseUrl]);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toMatch(/^created {5}notes skill_1 version \d+\n/);
    expect(first.stdout).toContain(`recorded in ${join(project, '.skillbox', 'uploads.json')}`);
    const second = await upload(['--root', 'skills', '--base-url', server.baseUrl, '--json']);
    expect(JSON.parse(second.stdout).skills[0]).toMatchObject({
      name: 'notes',
      status: 'unchanged',
      providerReference: { anthropic: 'skill_1' },
    });
    expect(server.requests).toHaveLength(1);
    server.failNext(500, `overloaded for key ${apiKey}`);
    await writeTestFiles(join(project, 'skills'), [{ path: 'notes/more.md', text: 'More.\n' }]);
    const failed = await upload(['--root', 'skills', '--base-url', server.baseUrl]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('anthropic answered HTTP 500: overloaded for key [api key]');
    for (const output of [first, second, failed]) expect(output.stdout + output.stderr).not.toContain(apiKey);
    expect(await readFile(join(project, '.skillbox', 'uploads.json'), 'utf8')).not.toContain(apiKey);
  });

  it('refuses bad usage by name: no key, a bad provider, neither --root nor --lock', async () => {
    expect(await upload(['--root', 'skills'], {})).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('set ANTHROPIC_API_KEY'),
    });
    expect(await upload(['--root', 'skills', '--provider', 'gemini'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--provider must be anthropic or openai'),
    });
    expect(await upload([])).toMatchObject({ code: 2, stderr: expect.stringContaining('give --root DIR or --lock') });
    expect(server.requests).toHaveLength(0);
  });
});
