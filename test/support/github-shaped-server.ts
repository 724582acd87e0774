import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { FetchedFile } from '../../src/hub/skill-source.js';
import { paxRecords, type TarMember, tarArchive } from '../../src/repository/archive/testing/archive-writers.js';

/** Answers a request itself (hang, lie, redirect); return false to let the server answer normally. */
export type GitHubInterceptor = (request: IncomingMessage, response: ServerResponse) => boolean;

export interface GitHubShapedServer {
  /** The REST API origin (repos, commits, tarball redirects). */
  readonly apiBaseUrl: string;
  /** The archive host the tarball endpoint redirects to, like codeload.github.com. */
  readonly archiveOrigin: string;
  /** Publishes a tree as a new commit of `owner/repo` on `branch`; returns the commit id. */
  publish(repository: string, tree: readonly FetchedFile[], branch?: string): string;
  /** Publishes a ready tarball (hostile ones included) as a new commit; returns the commit id. */
  publishTarball(repository: string, tarball: Buffer, branch?: string): string;
  /** Intercepts requests on either origin until removed. */
  intercept(interceptor: GitHubInterceptor): () => void;
  /** Every request received: origin role, path and the Authorization header it carried. */
  readonly requests: { role: 'api' | 'archive'; path: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

interface Repository {
  defaultBranch: string;
  branches: Map<string, string>;
  tarballs: Map<string, Buffer>;
}

/** A tarball laid out like GitHub's: a pax global header with the commit, one `owner-repo-commit/` folder. */
export function githubStyleTarball(repository: string, commit: string, tree: readonly FetchedFile[]): Buffer {
  const top = `${repository.replace('/', '-')}-${commit.slice(0, 7)}`;
  const members: TarMember[] = [{ name: 'pax_global_header', type: 'g', data: paxRecords({ comment: commit }) }];
  members.push({ name: `${top}/`, type: '5', mode: 0o755 });
  const folders = new Set<string>();
  for (const file of tree) {
    const segments = file.path.split('/');
    for (let length = 1; length < segments.length; length += 1) {
      const folder = segments.slice(0, length).join('/');
      if (folders.has(folder)) continue;
      folders.add(folder);
      members.push({ name: `${top}/${folder}/`, type: '5', mode: 0o755 });
    }
    members.push({ name: `${top}/${file.path}`, data: file.bytes, mode: file.executable ? 0o755 : 0o644 });
  }
  return gzipSync(tarArchive(members));
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * The slice of GitHub the GitHub source uses, on loopback: `GET /repos/o/r` (default branch),
 * `GET /repos/o/r/commits/REF` with `Accept: application/vnd.github.sha` (the commit id as text),
 * and `GET /repos/o/r/tarball/COMMIT`, which redirects to a second server like codeload.github.com.
 */
export async function startGitHubShapedServer(): Promise<GitHubShapedServer> {
  const repositories = new Map<string, Repository>();
  const interceptors = new Set<GitHubInterceptor>();
  const requests: GitHubShapedServer['requests'] = [];
  let archiveOrigin = '';

  function json(response: ServerResponse, status: number, body: unknown): void {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  }

  function handle(role: 'api' | 'archive', request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://localhost');
    requests.push({ role, path: url.pathname, authorization: request.headers.authorization });
    for (const interceptor of interceptors) if (interceptor(request, response)) return;
    if (role === 'archive') {
      const match = /^\/([^/]+\/[^/]+)\/legacy\.tar\.gz\/([0-9a-f]{40})$/.exec(url.pathname);
      const tarball = match && repositories.get(match[1] as string)?.tarballs.get(match[2] as string);
      if (!tarball) return json(response, 404, { message: 'Not Found' });
      response.writeHead(200, { 'content-type': 'application/x-gzip', 'content-length': String(tarball.length) });
      response.end(tarball);
      return;
    }
    const match = /^\/repos\/([^/]+\/[^/]+)(?:\/(commits|tarball)\/(.+))?$/.exec(url.pathname);
    const repository = match && repositories.get(match[1] as string);
    if (!match || !repository) return json(response, 404, { message: 'Not Found' });
    const [, name, kind, rawRef] = match;
    if (kind === undefined) return json(response, 200, { full_name: name, default_branch: repository.defaultBranch });
    const ref = decodeURIComponent(rawRef as string);
    if (kind === 'commits') {
      const commit = repository.branches.get(ref) ?? (repository.tarballs.has(ref) ? ref : undefined);
      if (commit === undefined) return json(response, 422, { message: `No commit found for SHA: ${ref}` });
      if (request.headers.accept !== 'application/vnd.github.sha') return json(response, 200, { sha: commit });
      response.writeHead(200, { 'content-type': 'application/vnd.github.sha' });
      response.end(commit);
      return;
    }
    if (!repository.tarballs.has(ref)) return json(response, 404, { message: 'Not Found' });
    response.writeHead(302, { location: `${archiveOrigin}/${name}/legacy.tar.gz/${ref}` });
    response.end();
  }

  const api = createServer((request, response) => handle('api', request, response));
  const archive = createServer((request, response) => handle('archive', request, response));
  const apiBaseUrl = await listen(api);
  archiveOrigin = await listen(archive);

  function repositoryFor(name: string, branch: string): Repository {
    let repository = repositories.get(name);
    if (repository === undefined) {
      repository = { defaultBranch: branch, branches: new Map(), tarballs: new Map() };
      repositories.set(name, repository);
    }
    return repository;
  }

  function publishTarball(name: string, tarball: Buffer, branch = 'main'): string {
    const commit = createHash('sha1').update(randomBytes(16)).digest('hex');
    const repository = repositoryFor(name, branch);
    repository.tarballs.set(commit, tarball);
    repository.branches.set(branch, commit);
    return commit;
  }

  return {
    apiBaseUrl,
    archiveOrigin,
    requests,
    publishTarball,
    publish(name, tree, branch = 'main') {
      const commit = createHash('sha1').update(randomBytes(16)).digest('hex');
      const repository = repositoryFor(name, branch);
      repository.tarballs.set(commit, githubStyleTarball(name, commit, tree));
      repository.branches.set(branch, commit);
      return commit;
    },
    intercept(interceptor) {
      interceptors.add(interceptor);
      return () => interceptors.delete(interceptor);
    },
    async close() {
      for (const server of [api, archive]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
