import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FetchedFile } from '../../src/hub/skill-source.js';
import { writeTree } from '../../src/hub/testing/conformance-skill-tree.js';

/** Answers a request itself (hang, cut short, redirect); return false to let git answer. */
export type GitInterceptor = (request: IncomingMessage, response: ServerResponse) => boolean;

export interface GitHttpServer {
  /** `http://127.0.0.1:PORT`; repositories are at `/NAME.git`. */
  readonly baseUrl: string;
  url(name: string): string;
  /** Commits the tree (plus symbolic links: path to target) as a new commit on `branch`; returns its id. */
  publish(
    name: string,
    tree: readonly FetchedFile[],
    options?: { branch?: string; tag?: string; symlinks?: Record<string, string> },
  ): Promise<string>;
  /** Runs git in the bare repository `name` (creating it), for trees no working copy can hold. */
  git(name: string, args: readonly string[], input?: string): string;
  intercept(interceptor: GitInterceptor): () => void;
  close(): Promise<void>;
}

const identity = ['-c', 'user.name=Conformance', '-c', 'user.email=conformance@example.invalid'];

/**
 * Real `git http-backend` behind a small CGI bridge on loopback: the smart HTTP protocol (v2
 * included) exactly as a git hosting server speaks it, over bare repositories in a temporary folder.
 */
export async function startGitHttpServer(): Promise<GitHttpServer> {
  const root = mkdtempSync(join(tmpdir(), 'skillbox-git-server-'));
  const interceptors = new Set<GitInterceptor>();

  function git(name: string, args: readonly string[], input?: string): string {
    const repository = join(root, `${name}.git`);
    if (!existsSync(repository)) {
      execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', repository]);
      execFileSync('git', ['--git-dir', repository, 'config', 'uploadpack.allowAnySHA1InWant', 'true']);
    }
    return execFileSync('git', ['--git-dir', repository, ...identity, ...args], {
      encoding: 'utf8',
      ...(input === undefined ? {} : { input }),
    }).trim();
  }

  function cgi(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const child = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: request.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: request.headers['content-type'] ?? '',
        REMOTE_ADDR: '127.0.0.1',
        GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''),
        HTTP_CONTENT_ENCODING: String(request.headers['content-encoding'] ?? ''),
      },
    });
    request.pipe(child.stdin);
    let head = Buffer.alloc(0);
    let headersSent = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) {
        response.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const key = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (key.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[key] = value;
      }
      response.writeHead(status, headers);
      headersSent = true;
      response.write(head.subarray(end + 4));
    });
    child.on('close', () => {
      if (!headersSent) response.writeHead(500);
      response.end();
    });
  }

  const server = createServer((request, response) => {
    for (const interceptor of interceptors) if (interceptor(request, response)) return;
    cgi(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    url: (name) => `${baseUrl}/${name}.git`,
    git,
    async publish(name, tree, options = {}) {
      const branch = options.branch ?? 'main';
      git(name, ['rev-parse', '--git-dir']);
      const work = mkdtempSync(join(tmpdir(), 'skillbox-git-work-'));
      try {
        await writeTree(work, tree);
        for (const [path, target] of Object.entries(options.symlinks ?? {})) symlinkSync(target, join(work, path));
        const run = (args: string[]) =>
          execFileSync('git', ['--git-dir', join(root, `${name}.git`), '--work-tree', work, ...identity, ...args], {
            encoding: 'utf8',
          }).trim();
        run(['add', '--all', '.']);
        const treeId = run(['write-tree']);
        const parent = (() => {
          try {
            return run(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
          } catch {
            return '';
          }
        })();
        const commit = run(['commit-tree', treeId, ...(parent === '' ? [] : ['-p', parent]), '-m', 'publish']);
        run(['update-ref', `refs/heads/${branch}`, commit]);
        if (options.tag !== undefined) run(['tag', '--force', '--annotate', '-m', 'tag', options.tag, commit]);
        return commit;
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
    intercept(interceptor) {
      interceptors.add(interceptor);
      return () => interceptors.delete(interceptor);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
