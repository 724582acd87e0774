import { createClawHubSource } from '../../src/hub/sources/clawhub-source.js';
import { createGitHubSource } from '../../src/hub/sources/github-source.js';
import { conformanceSkillTree } from '../../src/hub/testing/conformance-skill-tree.js';
import { hostileArchiveLimits, hostileZip } from '../../src/hub/testing/hostile-archives.js';
import type { SourceConformanceHarness } from '../../src/hub/testing/source-conformance.js';
import { type ClawHubServer, startClawHubServer } from './clawhub-server.js';
import { type GitHubShapedServer, startGitHubShapedServer } from './github-shaped-server.js';
import { answerNever, answerRedirectElsewhere, answerTruncated } from './hostile-http.js';
import { skillZip } from './well-known-site.js';

/** The ClawHub source against a loopback ClawHub (and a GitHub-shaped server for handoffs). */
export async function openClawHubSourceHarness(): Promise<
  SourceConformanceHarness & { server: ClawHubServer; github: GitHubShapedServer }
> {
  const server = await startClawHubServer();
  const github = await startGitHubShapedServer();
  const zip = skillZip(conformanceSkillTree());
  server.publish('conformance', '1.0.0', { zip });
  const limits = { timeoutMs: 2_000, archive: hostileArchiveLimits };
  const source = createClawHubSource(
    createGitHubSource({ apiBaseUrl: github.apiBaseUrl, archiveOrigins: [github.archiveOrigin], limits }),
    { baseUrl: server.baseUrl, limits },
  );
  return {
    server,
    github,
    source,
    reference: 'clawhub:conformance',
    missingReference: 'clawhub:no-such-skill',
    keepsExecutableBits: true,
    async hostile(content) {
      const slug = `hostile-${content}`;
      const hostile = hostileZip(content);
      if (hostile !== undefined) {
        server.publish(slug, '1.0.0', { zip: hostile });
        return `clawhub:${slug}`;
      }
      if (!['hanging-server', 'redirect-to-another-host', 'truncated-download'].includes(content)) return undefined;
      server.publish(slug, '1.0.0', { zip });
      server.intercept((request, response) => {
        if (!request.url?.includes(slug)) return false;
        if (content === 'hanging-server') answerNever(response);
        else if (content === 'redirect-to-another-host') answerRedirectElsewhere(response);
        else if (content === 'truncated-download' && request.url.startsWith('/api/v1/download'))
          answerTruncated(response, zip, 'application/zip');
        else return false;
        return true;
      });
      return `clawhub:${slug}`;
    },
    async close() {
      await server.close();
      await github.close();
    },
  };
}
