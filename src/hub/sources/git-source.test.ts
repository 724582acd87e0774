import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitHttpServer, startGitHttpServer } from '../../../test/support/git-http-server.js';
import { openGitSourceHarness } from '../../../test/support/git-source-harness.js';
import { conformanceSkillTree } from '../testing/conformance-skill-tree.js';
import { describeSkillSourceConformance } from '../testing/source-conformance.js';
import { createGitSource } from './git-source.js';

describeSkillSourceConformance('git', openGitSourceHarness);

describe('git source', () => {
  let server: GitHttpServer;
  beforeAll(async () => {
    server = await startGitHttpServer();
  });
  afterAll(() => server.close());
  const source = createGitSource({ allowInsecureTransports: true });

  it('matches git URLs only', () => {
    for (const reference of [
      'git+https://example.com/a/b',
      'https://example.com/a/b.git',
      'https://example.com/a/b.git#v1:skills',
      'ssh://git@example.com/a/b',
      'git@github.com:a/b.git',
      'git+file:///srv/skills',
      'file:///srv/skills.git',
    ])
      expect(source.matches(reference), reference).toBe(true);
    for (const reference of [
      'https://example.com/skills',
      'owner/repo',
      'npm:x',
      './local',
      'git+https://x/y#a:../b',
      'file:///srv/skills',
    ])
      expect(source.matches(reference), reference).toBe(false);
  });

  it('refuses plain http unless insecure transports are allowed, naming the CLI flag and the option', async () => {
    await expect(createGitSource().resolve('http://127.0.0.1:1/a.git')).rejects.toThrow(
      /http:\/\/ neither encrypts nor authenticates the server, so it is off by default; allow it with --allow-unencrypted-git \(library: git\.allowInsecureTransports\)/,
    );
  });

  it('reads a bare repository on this machine by git+file:// and file://….git, without insecure transports', async () => {
    await server.publish('local-mirror', conformanceSkillTree());
    const folder = server.git('local-mirror', ['rev-parse', '--absolute-git-dir']).trim();
    const secure = createGitSource();
    for (const reference of [`git+file://${folder}`, `file://${folder}`]) {
      const resolved = await secure.resolve(reference);
      expect(resolved.pinned).toMatch(/^[0-9a-f]{40}$/);
      expect((await secure.fetch(resolved)).map((skill) => skill.name).sort()).toEqual(['alpha', 'beta']);
    }
  });

  it('resolves branches and annotated tags to commits, and a path selects a folder', async () => {
    const first = await server.publish('refs', conformanceSkillTree(), { tag: 'v1' });
    const second = await server.publish('refs', conformanceSkillTree().slice(0, 4));
    expect((await source.resolve(server.url('refs'))).pinned).toBe(second);
    const tagged = await source.resolve(`${server.url('refs')}#v1:skills/beta`);
    expect(tagged).toMatchObject({ pinned: first, ref: 'v1' });
    expect((await source.fetch(tagged)).map((skill) => [skill.name, skill.skillPath])).toEqual([
      ['beta', 'skills/beta'],
    ]);
  });

  it('fetches the pinned commit after the branch moved on', async () => {
    await server.publish('moving', conformanceSkillTree());
    const pinned = await source.resolve(server.url('moving'));
    await server.publish('moving', conformanceSkillTree().slice(0, 4));
    expect((await source.fetch(pinned)).map((skill) => skill.name)).toEqual(['alpha', 'beta']);
  });

  it('names a missing ref', async () => {
    await server.publish('named', conformanceSkillTree());
    await expect(source.resolve(`${server.url('named')}#no-such-branch`)).rejects.toThrow(
      /git source ".*named\.git#no-such-branch": the repository has no ref "no-such-branch"/,
    );
  });

  it('never shows a password from the URL in an error', async () => {
    const error = (await source
      .resolve('https://user:s3cret-password@127.0.0.1:1/private.git')
      .catch((caught: unknown) => caught)) as Error;
    expect(error.message).toContain('https://***@127.0.0.1:1/private.git');
    expect(error.message).not.toContain('s3cret');
  });
});
