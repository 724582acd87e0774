import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubSource } from '../../src/hub/sources/github-source.js';
import { conformanceSkillTree } from '../../src/hub/testing/conformance-skill-tree.js';
import { describeSkillSourceHostileConformance } from '../../src/hub/testing/source-conformance.js';
import { startGitHubShapedServer } from '../support/github-shaped-server.js';
import { openGitHubSourceHarness } from '../support/github-source-harness.js';

describeSkillSourceHostileConformance('github', openGitHubSourceHarness);

describe('github source with its default limits', () => {
  let server: Awaited<ReturnType<typeof startGitHubShapedServer>>;
  beforeAll(async () => {
    server = await startGitHubShapedServer();
  });
  afterAll(() => server.close());

  it('refuses a 65 MiB file (the default per-file limit is 64 MiB)', { timeout: 30_000 }, async () => {
    const tree = conformanceSkillTree();
    tree.push({ path: 'skills/alpha/assets/huge.bin', bytes: Buffer.alloc(65 * 1024 * 1024), executable: false });
    server.publish('big/repo', tree);
    const source = createGitHubSource({ apiBaseUrl: server.apiBaseUrl, archiveOrigins: [server.archiveOrigin] });
    await expect(source.fetch(await source.resolve('big/repo'))).rejects.toThrow(
      /github source "big\/repo": .*huge\.bin.*over the 67108864-byte limit/,
    );
  });

  it('refuses an archive redirect to a host other than the configured archive host', async () => {
    server.publish('redirect/repo', conformanceSkillTree());
    // The archive host is not listed, so the API's redirect to it counts as "elsewhere".
    const source = createGitHubSource({ apiBaseUrl: server.apiBaseUrl, archiveOrigins: [] });
    await expect(source.fetch(await source.resolve('redirect/repo'))).rejects.toThrow(/redirected to another host/);
  });
});
