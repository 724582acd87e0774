import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Answers a request itself (hang, cut short, redirect); return false to let ClawHub answer. */
export type ClawHubInterceptor = (request: IncomingMessage, response: ServerResponse) => boolean;

/** What one published version downloads as: a zip, or a GitHub handoff. */
export type ClawHubDownload = { zip: Buffer } | { github: { repo: string; commit: string; path: string } };

export interface ClawHubServer {
  readonly baseUrl: string;
  /** Publishes a version of `slug` (the newest published is `latestVersion`). */
  publish(slug: string, version: string, download: ClawHubDownload, summary?: string): void;
  intercept(interceptor: ClawHubInterceptor): () => void;
  close(): Promise<void>;
}

/**
 * The read endpoints of ClawHub's `/api/v1` on loopback, as its http-api documentation describes them:
 * `skills/{slug}` (with `latestVersion`), `skills/{slug}/versions/{version}`, `download?slug=&version=`
 * (a zip, or a JSON handoff for GitHub-backed skills) and `search?q=&limit=`. Errors are text/plain.
 */
export async function startClawHubServer(): Promise<ClawHubServer> {
  const skills = new Map<string, { summary: string; versions: Map<string, ClawHubDownload>; latest: string }>();
  const interceptors = new Set<ClawHubInterceptor>();

  function text(response: ServerResponse, status: number, body: string): void {
    response.writeHead(status, { 'content-type': 'text/plain' });
    response.end(body);
  }
  function json(response: ServerResponse, body: unknown): void {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  }

  const server = createServer((request, response) => {
    for (const interceptor of interceptors) if (interceptor(request, response)) return;
    const url = new URL(request.url ?? '/', 'http://localhost');
    const path = url.pathname;
    if (path === '/api/v1/search') {
      const query = (url.searchParams.get('q') ?? '').toLowerCase();
      const limit = Number(url.searchParams.get('limit') ?? 10);
      const results = [...skills]
        .filter(([slug, skill]) => slug.includes(query) || skill.summary.toLowerCase().includes(query))
        .slice(0, limit)
        .map(([slug, skill]) => ({ score: 1, slug, displayName: slug, summary: skill.summary, version: skill.latest }));
      return json(response, { results });
    }
    if (path === '/api/v1/download') {
      const download = skills
        .get(url.searchParams.get('slug') ?? '')
        ?.versions.get(url.searchParams.get('version') ?? '');
      if (download === undefined) return text(response, 404, 'Not found');
      if ('github' in download)
        return json(response, {
          sourceRef: 'public-github',
          repo: download.github.repo,
          commit: download.github.commit,
          path: download.github.path,
        });
      response.writeHead(200, { 'content-type': 'application/zip', 'content-length': String(download.zip.length) });
      response.end(download.zip);
      return;
    }
    const match = /^\/api\/v1\/skills\/([^/]+)(?:\/versions\/([^/]+))?$/.exec(path);
    const skill = match && skills.get(match[1] as string);
    if (!match || !skill) return text(response, 404, 'Skill not found');
    if (match[2] !== undefined) {
      const version = decodeURIComponent(match[2]);
      if (!skill.versions.has(version)) return text(response, 404, 'Version not found');
      return json(response, { version: { version } });
    }
    json(response, {
      skill: { slug: match[1], displayName: match[1], summary: skill.summary },
      latestVersion: { version: skill.latest },
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    publish(slug, version, download, summary = `The ${slug} skill.`) {
      const skill = skills.get(slug) ?? { summary, versions: new Map(), latest: version };
      skill.versions.set(version, download);
      skill.latest = version;
      skill.summary = summary;
      skills.set(slug, skill);
    },
    intercept(interceptor) {
      interceptors.add(interceptor);
      return () => interceptors.delete(interceptor);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
