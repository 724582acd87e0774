import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubShapedServer } from '../../../test/support/github-shaped-server.js';
import { openGitHubSourceHarness } from '../../../test/support/github-source-harness.js';
import { conformanceSkillTree } from '../testing/conformance-skill-tree.js';
import { describeSkillSourceConformance } from '../testing/source-conformance.js';
import { createGitHubSource } from './github-source.js';

describeSkillSourceConformance('github', openGitHubSourceHarness);

describe('github source', () => {
  let server: Awaited<ReturnType<typeof startGitHubShapedServer>>;
  beforeAll(async () => {
    server = await startGitHubShapedServer();
  });
  afterAll(() => server.close());

  const sourceFor = (token?: string) =>
    createGitHubSource({ apiBaseUrl: server.apiBaseUrl, archiveOrigins: [server.archiveOrigin], token });

  it('matches owner/repo, a path and a ref, and not URLs or relative paths', () => {
    const source = sourceFor();
    for (const reference of ['o/r', 'o/r/skills/pdf', 'o/r@v1.2', 'github:o/r/skills@main', 'o/r.git'])
      expect(source.matches(reference), reference).toBe(true);
    for (const reference of ['./o/r', '/abs/path', 'https://example.com/o/r', 'npm:pkg', 'o', 'o/r/../x', 'o/r@'])
      expect(source.matches(reference), reference).toBe(false);
  });

  it('resolves a branch and a tag to their commits, and a path selects one skill folder', async () => {
    const main = server.publish('acme/tools', conformanceSkillTree());
    const release = server.publish('acme/tools', conformanceSkillTree().slice(0, 4), 'v1');
    const source = sourceFor();
    expect((await source.resolve('acme/tools')).pinned).toBe(main);
    const pinned = await source.resolve('acme/tools/skills/alpha@v1');
    expect(pinned).toMatchObject({ pinned: release, ref: 'v1', sourceUrl: 'https://github.com/acme/tools.git' });
    expect((await source.resolve('acme/tools', { ref: 'v1' })).pinned).toBe(release);
    const skills = await source.fetch(pinned);
    expect(skills.map((skill) => [skill.name, skill.skillPath])).toEqual([['alpha', 'skills/alpha']]);
  });

  it('fetches the pinned commit even after the branch moved', async () => {
    const source = sourceFor();
    server.publish('acme/moving', conformanceSkillTree());
    const pinned = await source.resolve('acme/moving');
    server.publish(
      'acme/moving',
      conformanceSkillTree().filter((file) => !file.path.includes('beta')),
    );
    expect((await source.fetch(pinned)).map((skill) => skill.name)).toEqual(['alpha', 'beta']);
    expect((await source.fetch(await source.resolve('acme/moving'))).map((skill) => skill.name)).toEqual(['alpha']);
  });

  it('makes one archive download per fetch and sends the token to the API only', async () => {
    server.publish('acme/private', conformanceSkillTree());
    const source = sourceFor('ghp_secret-token-value');
    const before = server.requests.length;
    const skills = await source.fetch(await source.resolve('acme/private'));
    expect(skills).toHaveLength(2);
    const made = server.requests.slice(before);
    expect(made.filter((request) => request.role === 'archive')).toHaveLength(1);
    for (const request of made)
      expect(request.authorization).toBe(request.role === 'api' ? 'Bearer ghp_secret-token-value' : undefined);
  });

  it('never puts the token in an error message', async () => {
    const source = sourceFor('ghp_secret-token-value');
    const error = (await source.resolve('acme/absent').catch((caught: unknown) => caught)) as Error;
    expect(error.message).toContain('acme/absent');
    expect(error.message).not.toContain('ghp_secret');
  });

  it('says a ref is missing, naming it', async () => {
    server.publish('acme/refs', conformanceSkillTree());
    await expect(sourceFor().resolve('acme/refs@no-such-branch')).rejects.toThrow(
      /github source "acme\/refs@no-such-branch": GitHub has no ref "no-such-branch"/,
    );
  });

  it('says a path is missing, naming it', async () => {
    server.publish('acme/paths', conformanceSkillTree());
    const source = sourceFor();
    await expect(source.fetch(await source.resolve('acme/paths/skills/gamma'))).rejects.toThrow(
      /no folder "skills\/gamma"/,
    );
  });
});
