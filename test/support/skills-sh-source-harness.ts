import { createGitHubSource } from '../../src/hub/sources/github-source.js';
import { createSkillsShSource } from '../../src/hub/sources/skills-sh-source.js';
import type { SourceConformanceHarness } from '../../src/hub/testing/source-conformance.js';
import {
  type LoopbackFileServer,
  startLoopbackFileServer,
} from '../../src/repository/archive/testing/loopback-file-server.js';
import type { GitHubShapedServer } from './github-shaped-server.js';
import { openGitHubSourceHarness } from './github-source-harness.js';

/** skills.sh search hits as its `/api/search` answers them. */
export function serveSkillsShSearch(
  server: LoopbackFileServer,
  hits: readonly { id: string; name: string; installs: number; source: string }[],
): void {
  server.set('/api/search', (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const query = url.searchParams.get('q') ?? '';
    const limit = Number(url.searchParams.get('limit') ?? 10);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ skills: hits.filter((hit) => hit.id.includes(query)).slice(0, limit) }));
  });
}

/** The skills.sh source: its search API on loopback, its skills from the GitHub-shaped server. */
export async function openSkillsShSourceHarness(): Promise<
  SourceConformanceHarness & { server: GitHubShapedServer; search: LoopbackFileServer }
> {
  const github = await openGitHubSourceHarness();
  const search = await startLoopbackFileServer();
  const source = createSkillsShSource(
    createGitHubSource({
      apiBaseUrl: github.server.apiBaseUrl,
      archiveOrigins: [github.server.archiveOrigin],
      limits: { timeoutMs: 2_000, archive: { maxEntryBytes: 1024 * 1024, maxTotalBytes: 4 * 1024 * 1024 } },
    }),
    { baseUrl: search.origin, limits: { timeoutMs: 2_000 } },
  );
  return {
    server: github.server,
    search,
    source,
    reference: 'skills.sh/conformance/skills',
    missingReference: 'skills.sh/conformance/no-such-repo/skill',
    keepsExecutableBits: true,
    async hostile(content) {
      const repository = await github.hostile(content);
      return repository === undefined ? undefined : `skills.sh/${repository}`;
    },
    async close() {
      await search.close();
      await github.close();
    },
  };
}
