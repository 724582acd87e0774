import { createWellKnownSource } from '../../src/hub/sources/well-known-source.js';
import { conformanceSkillFiles } from '../../src/hub/testing/conformance-skill-tree.js';
import { hostileArchiveLimits, hostileTarGz } from '../../src/hub/testing/hostile-archives.js';
import type { HostileSourceContent, SourceConformanceHarness } from '../../src/hub/testing/source-conformance.js';
import {
  type LoopbackFileServer,
  startLoopbackFileServer,
} from '../../src/repository/archive/testing/loopback-file-server.js';
import { answerNever, answerRedirectElsewhere, answerTruncated } from './hostile-http.js';
import { serveWellKnownV1, serveWellKnownV2, skillTarGz, skillZip } from './well-known-site.js';

const source = () => createWellKnownSource({ limits: { timeoutMs: 2_000, archive: hostileArchiveLimits } });

/** Network misbehaviour on `path`, or false for content that is not about the network. */
function serveNetworkAttack(
  server: LoopbackFileServer,
  path: string,
  content: HostileSourceContent,
  body: Buffer,
): boolean {
  if (content === 'hanging-server') server.set(path, (_request, response) => answerNever(response));
  else if (content === 'truncated-download') server.set(path, (_request, response) => answerTruncated(response, body));
  else if (content === 'redirect-to-another-host')
    server.set(path, (_request, response) => answerRedirectElsewhere(response));
  else return false;
  return true;
}

/** The well-known source against a v0.1 site (one file per request) on loopback. */
export async function openWellKnownV1Harness(): Promise<SourceConformanceHarness & { server: LoopbackFileServer }> {
  const server = await startLoopbackFileServer();
  serveWellKnownV1(server, '/site', [
    { name: 'alpha', files: conformanceSkillFiles('alpha') },
    { name: 'beta', files: conformanceSkillFiles('beta') },
  ]);
  return {
    server,
    source: source(),
    reference: `${server.origin}/site`,
    missingReference: `${server.origin}/nothing-here`,
    keepsExecutableBits: false,
    async hostile(content) {
      const base = `/hostile-${content}`;
      const files = conformanceSkillFiles('beta');
      if (content === 'traversal' || content === 'absolute-path') {
        const listed = ['SKILL.md', content === 'traversal' ? '../../../etc/passwd' : '/etc/passwd'];
        serveWellKnownV1(server, base, [{ name: 'beta', files, listed }]);
        return `${server.origin}${base}`;
      }
      if (content === 'oversize-file') {
        const large = {
          path: 'large.bin',
          bytes: Buffer.alloc(hostileArchiveLimits.maxEntryBytes + 1),
          executable: false,
        };
        serveWellKnownV1(server, base, [{ name: 'beta', files: [...files, large] }]);
        return `${server.origin}${base}`;
      }
      serveWellKnownV1(server, base, [{ name: 'beta', files }]);
      const skillFile = `${base}/.well-known/skills/beta/SKILL.md`;
      return serveNetworkAttack(server, skillFile, content, Buffer.from((files[0] as { bytes: Uint8Array }).bytes))
        ? `${server.origin}${base}`
        : undefined;
    },
    close: () => server.close(),
  };
}

/** The well-known source against a v0.2 site (a .tar.gz and a .zip artifact, digests given) on loopback. */
export async function openWellKnownV2Harness(): Promise<SourceConformanceHarness & { server: LoopbackFileServer }> {
  const server = await startLoopbackFileServer();
  const alpha = skillTarGz(conformanceSkillFiles('alpha'));
  serveWellKnownV2(server, '/site', [
    { name: 'alpha', type: 'archive', bytes: alpha, file: 'alpha.tar.gz', contentType: 'application/gzip' },
    {
      name: 'beta',
      type: 'archive',
      bytes: skillZip(conformanceSkillFiles('beta')),
      file: 'beta.zip',
      contentType: 'application/zip',
    },
  ]);
  return {
    server,
    source: source(),
    reference: `${server.origin}/site`,
    missingReference: `${server.origin}/nothing-here`,
    keepsExecutableBits: true,
    async hostile(content) {
      const base = `/hostile-${content}`;
      const archive = hostileTarGz(content, '') ?? alpha;
      const name = archive === alpha ? 'alpha' : 'hostile';
      serveWellKnownV2(server, base, [
        { name, type: 'archive', bytes: archive, file: 'skill.tar.gz', contentType: 'application/gzip' },
      ]);
      if (
        archive === alpha &&
        !serveNetworkAttack(server, `${base}/.well-known/agent-skills/skill.tar.gz`, content, alpha)
      )
        return undefined;
      return `${server.origin}${base}`;
    },
    close: () => server.close(),
  };
}
