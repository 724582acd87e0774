import type { FetchedFile } from '../../src/hub/skill-source.js';
import { createGitHubSource } from '../../src/hub/sources/github-source.js';
import { createMarketplaceSource } from '../../src/hub/sources/marketplace-source.js';
import { conformanceSkillTree } from '../../src/hub/testing/conformance-skill-tree.js';
import type { SourceConformanceHarness } from '../../src/hub/testing/source-conformance.js';
import type { GitHubShapedServer } from './github-shaped-server.js';
import { openGitHubSourceHarness } from './github-source-harness.js';

/** A marketplace manifest as a tree file. */
export function marketplaceManifest(manifest: unknown): FetchedFile {
  return { path: '.claude-plugin/marketplace.json', bytes: Buffer.from(JSON.stringify(manifest)), executable: false };
}

/**
 * The marketplace source on the GitHub-shaped loopback server: the conformance tree plus a manifest
 * with one plugin that lists both skills (`strict: false`, as anthropics/skills does). Hostile content
 * is the GitHub harness's, since a marketplace arrives as a GitHub archive.
 */
export async function openMarketplaceSourceHarness(): Promise<
  SourceConformanceHarness & { server: GitHubShapedServer }
> {
  const github = await openGitHubSourceHarness();
  const { server } = github;
  server.publish('conformance/marketplace', [
    ...conformanceSkillTree(),
    marketplaceManifest({
      name: 'conformance',
      owner: { name: 'Conformance' },
      plugins: [{ name: 'both', source: './', strict: false, skills: ['./skills/alpha', './skills/beta'] }],
    }),
  ]);
  const source = createMarketplaceSource(
    createGitHubSource({
      apiBaseUrl: server.apiBaseUrl,
      archiveOrigins: [server.archiveOrigin],
      limits: { timeoutMs: 2_000, archive: { maxEntryBytes: 1024 * 1024, maxTotalBytes: 4 * 1024 * 1024 } },
    }),
  );
  return {
    server,
    source,
    reference: 'marketplace:conformance/marketplace',
    missingReference: 'marketplace:conformance/no-such-marketplace',
    keepsExecutableBits: true,
    async hostile(content) {
      const repository = await github.hostile(content);
      return repository === undefined ? undefined : `marketplace:${repository}`;
    },
    close: () => github.close(),
  };
}
