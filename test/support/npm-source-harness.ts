import { createNpmSource } from '../../src/hub/sources/npm-source.js';
import { conformanceSkillTree } from '../../src/hub/testing/conformance-skill-tree.js';
import { hostileArchiveLimits, hostileTarGz } from '../../src/hub/testing/hostile-archives.js';
import type { SourceConformanceHarness } from '../../src/hub/testing/source-conformance.js';
import { answerNever, answerRedirectElsewhere, answerTruncated } from './hostile-http.js';
import { type NpmRegistryServer, startNpmRegistryServer } from './npm-registry-server.js';

/** The npm source against a loopback registry serving `npm pack` tarballs, for the conformance suites. */
export async function openNpmSourceHarness(): Promise<SourceConformanceHarness & { server: NpmRegistryServer }> {
  const server = await startNpmRegistryServer();
  const valid = await server.publish(
    { name: '@conformance/skills', version: '1.0.0', skills: ['./skills'] },
    conformanceSkillTree(),
  );
  const source = createNpmSource({
    registryUrl: server.registryUrl,
    limits: { timeoutMs: 2_000, archive: hostileArchiveLimits },
  });
  return {
    server,
    source,
    reference: 'npm:@conformance/skills',
    missingReference: 'npm:no-such-package',
    keepsExecutableBits: true,
    async hostile(content) {
      const name = `hostile-${content}`;
      const tarball = hostileTarGz(content, 'package');
      if (tarball !== undefined) {
        server.publishTarball(name, '1.0.0', tarball);
        return `npm:${name}`;
      }
      server.publishTarball(name, '1.0.0', valid);
      server.intercept((request, response) => {
        if (!request.url?.startsWith(`/${name}`)) return false;
        const isTarball = request.url.endsWith('.tgz');
        if (content === 'hanging-server') answerNever(response);
        else if (content === 'redirect-to-another-host') answerRedirectElsewhere(response);
        else if (content === 'truncated-download' && isTarball) answerTruncated(response, valid);
        else return false;
        return true;
      });
      return `npm:${name}`;
    },
    close: () => server.close(),
  };
}
