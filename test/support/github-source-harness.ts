import { createGitHubSource } from '../../src/hub/sources/github-source.js';
import { conformanceSkillTree } from '../../src/hub/testing/conformance-skill-tree.js';
import { hostileArchiveLimits, hostileTarGz } from '../../src/hub/testing/hostile-archives.js';
import type { SourceConformanceHarness } from '../../src/hub/testing/source-conformance.js';
import { type GitHubShapedServer, githubStyleTarball, startGitHubShapedServer } from './github-shaped-server.js';
import { answerNever, answerRedirectElsewhere, answerTruncated } from './hostile-http.js';

export const conformanceTimeoutMs = 2_000;

/** The GitHub source against a GitHub-shaped loopback server, for the conformance suites. */
export async function openGitHubSourceHarness(): Promise<SourceConformanceHarness & { server: GitHubShapedServer }> {
  const server = await startGitHubShapedServer();
  server.publish('conformance/skills', conformanceSkillTree());
  const source = createGitHubSource({
    apiBaseUrl: server.apiBaseUrl,
    archiveOrigins: [server.archiveOrigin],
    limits: { timeoutMs: conformanceTimeoutMs, archive: hostileArchiveLimits },
  });
  return {
    server,
    source,
    reference: 'conformance/skills',
    missingReference: 'conformance/no-such-repo',
    keepsExecutableBits: true,
    async hostile(content) {
      const repository = `hostile/${content}`;
      const tarball = hostileTarGz(content, `hostile-${content}-0000000`);
      if (tarball !== undefined) {
        server.publishTarball(repository, tarball);
        return repository;
      }
      const commit = server.publish(repository, conformanceSkillTree());
      const valid = githubStyleTarball(repository, commit, conformanceSkillTree());
      server.intercept((request, response) => {
        if (!request.url?.includes(`/${repository}/`)) return false;
        if (content === 'hanging-server') answerNever(response);
        else if (content === 'truncated-download') answerTruncated(response, valid, 'application/x-gzip');
        else if (content === 'redirect-to-another-host') answerRedirectElsewhere(response);
        else return false;
        return true;
      });
      return repository;
    },
    close: () => server.close(),
  };
}
