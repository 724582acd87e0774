import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitHubShapedServer, startGitHubShapedServer } from '../../../test/support/github-shaped-server.js';
import { marketplaceManifest, openMarketplaceSourceHarness } from '../../../test/support/marketplace-source-harness.js';
import { conformanceSkillTree } from '../testing/conformance-skill-tree.js';
import { describeSkillSourceConformance } from '../testing/source-conformance.js';
import { createGitHubSource } from './github-source.js';
import { createMarketplaceSource } from './marketplace-source.js';

describeSkillSourceConformance('marketplace', openMarketplaceSourceHarness);

describe('marketplace source', () => {
  let server: GitHubShapedServer;
  beforeAll(async () => {
    server = await startGitHubShapedServer();
  });
  afterAll(() => server.close());
  const source = () =>
    createMarketplaceSource(
      createGitHubSource({ apiBaseUrl: server.apiBaseUrl, archiveOrigins: [server.archiveOrigin] }),
    );

  // The layout of trailofbits-style marketplaces: one folder per plugin, each with its own skills/.
  const pluginTree = () => [
    ...conformanceSkillTree().map((file) => ({ ...file, path: `plugins/tools/${file.path}` })),
    {
      path: 'plugins/docs/skills/guide/SKILL.md',
      bytes: Buffer.from('---\nname: guide\ndescription: Docs.\n---\n'),
      executable: false,
    },
    {
      path: 'unlisted/skills/hidden/SKILL.md',
      bytes: Buffer.from('---\nname: hidden\ndescription: No plugin.\n---\n'),
      executable: false,
    },
    marketplaceManifest({
      name: 'plugins',
      owner: { name: 'x' },
      metadata: { pluginRoot: './plugins' },
      plugins: [
        { name: 'tools', source: './plugins/tools' },
        { name: 'docs', source: 'docs' },
        { name: 'remote', source: { source: 'github', repo: 'someone/else' } },
      ],
    }),
  ];

  it('reads the skills of every plugin hosted in the repository, and only those', async () => {
    server.publish('acme/plugins', pluginTree());
    const skills = await source().fetch(await source().resolve('marketplace:acme/plugins'));
    expect(skills.map((skill) => [skill.name, skill.skillPath])).toEqual([
      ['alpha', 'plugins/tools/skills/alpha'],
      ['beta', 'plugins/tools/skills/beta'],
      ['guide', 'plugins/docs/skills/guide'],
    ]);
  });

  it('selects one plugin with #plugin and names a missing or remote one', async () => {
    server.publish('acme/select', pluginTree());
    const docs = await source().fetch(await source().resolve('marketplace:acme/select#docs'));
    expect(docs.map((skill) => skill.name)).toEqual(['guide']);
    await expect(source().fetch(await source().resolve('marketplace:acme/select#nope'))).rejects.toThrow(
      /no plugin "nope"; it has "tools", "docs", "remote"/,
    );
    await expect(source().fetch(await source().resolve('marketplace:acme/select#remote'))).rejects.toThrow(
      /plugin "remote" is hosted outside the marketplace repository/,
    );
  });

  it('says so when the repository has no marketplace manifest', async () => {
    server.publish('acme/plain', conformanceSkillTree());
    await expect(source().fetch(await source().resolve('marketplace:acme/plain'))).rejects.toThrow(
      /has no \.claude-plugin\/marketplace\.json/,
    );
  });
});
