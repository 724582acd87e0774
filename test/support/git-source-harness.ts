import { createGitSource } from '../../src/hub/sources/git-source.js';
import { conformanceSkillTree } from '../../src/hub/testing/conformance-skill-tree.js';
import { hostileArchiveLimits } from '../../src/hub/testing/hostile-archives.js';
import type { SourceConformanceHarness } from '../../src/hub/testing/source-conformance.js';
import { type GitHttpServer, startGitHttpServer } from './git-http-server.js';
import { answerNever, answerRedirectElsewhere } from './hostile-http.js';

const skillMarkdown = '---\nname: hostile\ndescription: A skill in a hostile repository.\n---\n\nBody.\n';

/** The git source against real `git http-backend` on loopback, for the conformance suites. */
export async function openGitSourceHarness(): Promise<SourceConformanceHarness & { server: GitHttpServer }> {
  const server = await startGitHttpServer();
  await server.publish('conformance', conformanceSkillTree());
  const source = createGitSource({
    allowInsecureTransports: true,
    limits: { timeoutMs: 2_000, archive: hostileArchiveLimits },
  });
  const hostileTree = (extra: { path: string; bytes: Buffer }[]) => [
    { path: 'SKILL.md', bytes: Buffer.from(skillMarkdown), executable: false },
    ...extra.map((file) => ({ ...file, executable: false })),
  ];
  return {
    server,
    source,
    reference: server.url('conformance'),
    missingReference: server.url('no-such-repository'),
    keepsExecutableBits: true,
    async hostile(content) {
      const name = `hostile-${content}`;
      switch (content) {
        case 'traversal': {
          // No working copy can hold a ".." entry; git's plumbing writes the tree a hostile server would serve.
          const blob = server.git(name, ['hash-object', '-w', '--stdin'], 'outside\n');
          const skill = server.git(name, ['hash-object', '-w', '--stdin'], skillMarkdown);
          const tree = server.git(name, ['mktree'], `100644 blob ${skill}\tSKILL.md\n100644 blob ${blob}\t..\n`);
          const commit = server.git(name, ['commit-tree', tree, '-m', 'hostile']);
          server.git(name, ['update-ref', 'refs/heads/main', commit]);
          return server.url(name);
        }
        case 'symlink':
          await server.publish(name, hostileTree([]), { symlinks: { passwd: '/etc/passwd' } });
          return server.url(name);
        case 'zip-bomb':
          await server.publish(name, hostileTree([{ path: 'zeros.bin', bytes: Buffer.alloc(16 * 1024 * 1024) }]));
          return server.url(name);
        case 'oversize-file':
          await server.publish(
            name,
            hostileTree([{ path: 'large.bin', bytes: Buffer.alloc(hostileArchiveLimits.maxEntryBytes + 1, 0x61) }]),
          );
          return server.url(name);
        case 'truncated-download': {
          const commit = await server.publish(name, conformanceSkillTree());
          server.intercept((request, response) => {
            if (!request.url?.startsWith(`/${name}.git/git-upload-pack`)) return false;
            // Let git answer, but drop the connection after the first part of the pack.
            const write = response.write.bind(response) as (chunk: Buffer) => boolean;
            let sent = 0;
            response.write = ((chunk: Buffer) => {
              sent += chunk.length;
              if (sent > 64) {
                response.socket?.destroy();
                return false;
              }
              return write(chunk);
            }) as typeof response.write;
            return false;
          });
          // A commit id skips ls-remote, so the cut falls on the pack download itself.
          return `${server.url(name)}#${commit}`;
        }
        case 'hanging-server':
        case 'redirect-to-another-host':
          await server.publish(name, conformanceSkillTree());
          server.intercept((request, response) => {
            if (!request.url?.startsWith(`/${name}.git/`)) return false;
            if (content === 'hanging-server') answerNever(response);
            else answerRedirectElsewhere(response);
            return true;
          });
          return server.url(name);
        default:
          // absolute paths, hard links and devices: a git tree cannot express them.
          return undefined;
      }
    },
    close: () => server.close(),
  };
}
