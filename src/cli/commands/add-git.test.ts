// `skillbox add` from an internal git server (http:// on loopback) and from a bare repository on
// this machine: what the CLI refuses, what it says to do instead, and that the way it names works.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GitHttpServer, startGitHttpServer } from '../../../test/support/git-http-server.js';
import { skillFile } from '../../hub/testing/skill-folder.js';
import { main } from '../main.js';

let server: GitHttpServer;
let bare: string;
let project: string;

beforeAll(async () => {
  server = await startGitHttpServer();
  const tree = [{ path: 'skills/notes/SKILL.md', bytes: Buffer.from(skillFile('notes')), executable: false }];
  await server.publish('internal', tree);
  bare = server.git('internal', ['rev-parse', '--absolute-git-dir']).trim();
});
afterAll(() => server.close());
beforeEach(async (context) => {
  project = await mkdtemp(join(tmpdir(), 'skillbox-cli-add-git-'));
  context.onTestFinished(() => rm(project, { recursive: true, force: true }));
});

async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    cwd: project,
    // Only sources that stay on this machine.
    env: { HOME: project, SKILLBOX_SOURCES: 'local,git' },
  });
  return { code, stdout, stderr };
}

const installed = () => readdir(join(project, '.agents/skills')).catch(() => []);

describe('skillbox add from git servers and repositories on this machine', () => {
  it('refuses http:// git naming --allow-unencrypted-git, and installs with it', async () => {
    const refused = await cli(['add', server.url('internal'), '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('allow it with --allow-unencrypted-git');
    expect(refused.stderr).not.toContain('allowInsecureTransports is off');
    expect(await installed()).toEqual([]);
    const added = await cli(['add', server.url('internal'), '--yes', '--allow-unencrypted-git']);
    expect(added.code).toBe(0);
    expect(await installed()).toEqual(['notes']);
  });

  it('installs a bare repository by git+file://, and says so when it is given as a folder', async () => {
    const added = await cli(['add', `git+file://${bare}`, '--yes']);
    expect(added.code).toBe(0);
    expect(await installed()).toEqual(['notes']);
    const asFolder = await cli(['add', bare, '--yes']);
    expect(asFolder.code).toBe(1);
    expect(asFolder.stderr).toContain(
      `is a git repository without a working tree (a bare repository): install it as git+file://${bare}`,
    );
  });

  it('lists every kind of source in add --help', async () => {
    const help = await cli(['add', '--help']);
    for (const kind of [
      './path',
      'owner/repo',
      'git+file://',
      'npm:',
      '.well-known',
      'marketplace:',
      'skills.sh/',
      'clawhub:',
    ])
      expect(help.stdout, kind).toContain(kind);
    expect(help.stdout).toContain('--allow-unencrypted-git');
  });
});
