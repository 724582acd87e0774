import { describe, expect, it } from 'vitest';
import { createGitHubSource } from '../../src/hub/sources/github-source.js';
import { createMarketplaceSource } from '../../src/hub/sources/marketplace-source.js';
import { conformanceSkillTree } from '../../src/hub/testing/conformance-skill-tree.js';
import { describeSkillSourceHostileConformance } from '../../src/hub/testing/source-conformance.js';
import { startGitHubShapedServer } from '../support/github-shaped-server.js';
import { marketplaceManifest, openMarketplaceSourceHarness } from '../support/marketplace-source-harness.js';

describeSkillSourceHostileConformance('marketplace', openMarketplaceSourceHarness);

describe('marketplace manifests that point out of the repository', () => {
  for (const [field, plugin] of [
    ['source', { name: 'escape', source: '../../etc' }],
    ['skills entry', { name: 'escape', source: './', skills: ['./../../etc'] }],
  ] as const) {
    it(`refuses a plugin ${field} with ".."`, async () => {
      const server = await startGitHubShapedServer();
      try {
        server.publish('evil/marketplace', [
          ...conformanceSkillTree(),
          marketplaceManifest({ name: 'evil', owner: { name: 'x' }, plugins: [plugin] }),
        ]);
        const source = createMarketplaceSource(
          createGitHubSource({ apiBaseUrl: server.apiBaseUrl, archiveOrigins: [server.archiveOrigin] }),
        );
        await expect(source.fetch(await source.resolve('marketplace:evil/marketplace'))).rejects.toThrow(
          /marketplace source "marketplace:evil\/marketplace": plugin "escape" .* leaves the marketplace/,
        );
      } finally {
        await server.close();
      }
    });
  }
});
