import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { nodeHttp } from '../node-http.js';
import type { SkillRepository } from '../repository/types.js';
import { createRequirementChecker } from '../requirements/check-requirements.js';
import type { WorkspaceRuntime } from '../runtime/runtime-types.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { ArtifactStore } from '../workspace/outputs/artifact-store.js';
import { createFilesystemArtifactStore } from '../workspace/outputs/filesystem-artifact-store.js';
import type { SessionsListView } from './inspector-views.js';
import { createRequestGuard, isLoopbackHost, type Refusal } from './request-guard.js';
import { readRunArtifact, readRunOutputFile, type ServedOutputFile } from './run-output-files.js';
import { describeSession, describeSessions } from './sessions-view.js';
import { createLockStatusReader } from './skill-origin.js';
import { describeCatalog, describeSkills, type RequirementCheckerSource } from './skills-view.js';
import { createSkillsViewCache } from './skills-view-cache.js';

/** What `startInspector` serves. */
export interface InspectorOptions {
  repository: SkillRepository;
  /** The sessions shown; none: the sessions page says there is no store. The inspector only reads it. */
  store?: SessionStore;
  /** Whose sessions are listed (as `skillbox chat --user`). */
  userId: string;
  appName?: string;
  /** Default 127.0.0.1. Anything else requires the token printed in the URL. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /**
   * Where skills' declared requirements are checked, as skill_run sees them with default options (no
   * host variables, no network). Default: made when a skill first declares any, by
   * `createRuntime({ kind: 'auto', hostFallback: true })`, as `skillbox list` does.
   */
  requirementsRuntime?: WorkspaceRuntime;
  /**
   * The workspace manager's folder (`baseDir`) the sessions' runs used: with it, an output file a
   * stored run result names is served from the session's workspace (images shown, others
   * downloaded), read-only and confined (run-output-files.ts). Without it, output files are named only.
   */
  workspacesDir?: string;
  /**
   * The artifact store folder (`createFilesystemArtifactStore({ dir })`) the runs saved to with
   * `save_as_artifacts`; default `<workspacesDir>/artifacts`, where a workspace manager keeps it.
   * Artifacts a stored run result names are served from it, read-only, as output files are.
   */
  artifactsDir?: string;
  /** Largest output file served, in bytes (default 16 MiB). */
  maxOutputFileBytes?: number;
  /** The built page (app.js, app.css): dist/inspector in the package. */
  assetsDir: string;
}

export interface RunningInspector {
  /** The address to open, with the token when one is required. */
  url: string;
  close(): Promise<void>;
}

const securityHeaders = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>skillbox inspector</title>
<link rel="stylesheet" href="/assets/app.css">
</head>
<body>
<div id="app"><p>Loading the inspector…</p></div>
<script type="module" src="/assets/app.js"></script>
</body>
</html>
`;

/**
 * Serves the inspector: the page, and read-only JSON built from the repository and the session store
 * through their public methods (skills-view.ts, sessions-view.ts). Every request passes the guard
 * (request-guard.ts) first.
 */
export async function startInspector(options: InspectorOptions): Promise<RunningInspector> {
  const host = options.host ?? '127.0.0.1';
  const token = isLoopbackHost(host) ? undefined : randomBytes(24).toString('base64url');
  let port = 0;
  const guard = createRequestGuard({ host, port: () => port, ...(token === undefined ? {} : { token }) });
  const assets = new Map<string, { type: string; body: Promise<Buffer> }>([
    ['/assets/app.js', { type: 'text/javascript; charset=utf-8', body: readFile(join(options.assetsDir, 'app.js')) }],
    ['/assets/app.css', { type: 'text/css; charset=utf-8', body: readFile(join(options.assetsDir, 'app.css')) }],
  ]);
  for (const asset of assets.values()) asset.body.catch(() => undefined);
  const requirementChecker = lazyRequirementChecker(options.requirementsRuntime);
  const lockStatus = createLockStatusReader();
  const artifactsDir =
    options.artifactsDir ??
    (options.workspacesDir === undefined ? undefined : join(options.workspacesDir, 'artifacts'));
  // Only versions() and load() are called: they read, and a missing folder is no artifacts.
  const artifacts = artifactsDir === undefined ? undefined : createFilesystemArtifactStore({ dir: artifactsDir });
  const skillsView = createSkillsViewCache(options.repository, () =>
    describeSkills(options.repository, { requirementChecker, lockStatus }),
  );

  const answer = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://inspector');
    const refusal = guard(request, url);
    if (refusal !== undefined) return send(response, refusal.status, 'text/plain; charset=utf-8', refusal.reason);
    if (url.pathname === '/') return send(response, 200, 'text/html; charset=utf-8', page);
    const asset = assets.get(url.pathname);
    if (asset !== undefined) return send(response, 200, asset.type, await asset.body);
    if (url.pathname === '/api/skills') {
      const rescan = url.searchParams.get('rescan');
      if (rescan !== null && rescan !== '1')
        return send(response, 400, 'text/plain; charset=utf-8', 'rescan must be 1 or absent');
      return json(response, await skillsView({ rescan: rescan === '1' }));
    }
    if (url.pathname === '/api/catalog') {
      const budget = url.searchParams.get('budget');
      const tokens = budget === null || budget === '' ? undefined : Number(budget);
      if (tokens !== undefined && !(Number.isInteger(tokens) && tokens > 0))
        return send(response, 400, 'text/plain; charset=utf-8', 'budget must be a positive whole number of tokens');
      return json(response, await describeCatalog(options.repository, tokens));
    }
    if (url.pathname === '/api/sessions' || url.pathname.startsWith('/api/sessions/')) {
      const owner = sessionOwner(url, options);
      if (typeof owner === 'string') return send(response, 400, 'text/plain; charset=utf-8', owner);
      if (url.pathname === '/api/sessions') {
        const view: SessionsListView =
          options.store === undefined
            ? { store: false, ...owner, sessions: [] }
            : { store: true, ...owner, sessions: await describeSessions(options.store, owner.user, owner.app) };
        return json(response, view);
      }
      const filesMatch = /^\/api\/sessions\/([^/]+)\/(outputs|artifacts)$/.exec(url.pathname);
      if (filesMatch !== null && options.store !== undefined) {
        const key = { appName: owner.app, userId: owner.user, sessionId: decodeURIComponent(filesMatch[1] as string) };
        return filesMatch[2] === 'outputs'
          ? serveOutputFile(response, url, options, key)
          : serveArtifact(response, url, options.store, artifacts, key, options.maxOutputFileBytes);
      }
      const sessionMatch = /^\/api\/sessions\/([^/]+)$/.exec(url.pathname);
      if (sessionMatch === null || options.store === undefined)
        return send(response, 404, 'text/plain; charset=utf-8', 'not found');
      const after = url.searchParams.get('after');
      const afterVersion = after === null ? undefined : Number(after);
      if (afterVersion !== undefined && !(Number.isInteger(afterVersion) && afterVersion >= 0))
        return send(response, 400, 'text/plain; charset=utf-8', 'after must be a session version (a whole number)');
      const view = await describeSession(
        options.store,
        { appName: owner.app, userId: owner.user, sessionId: decodeURIComponent(sessionMatch[1] as string) },
        afterVersion,
      );
      if (view === undefined) return send(response, 404, 'text/plain; charset=utf-8', 'no such session');
      return json(response, {
        ...view,
        outputFilesServed: options.workspacesDir !== undefined,
        artifactsServed: artifacts !== undefined,
      });
    }
    return send(response, 404, 'text/plain; charset=utf-8', 'not found');
  };

  const server = nodeHttp().createServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      // The message only: a stack would show host paths to whoever asked.
      send(response, 500, 'text/plain; charset=utf-8', `inspector: ${(error as Error).message ?? String(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/${token === undefined ? '' : `?token=${token}`}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * One output file of one run (`?run=<event version>&file=<name>`), when the server was given the
 * workspaces folder. The answer is never a page: a raster image its bytes prove is sent inline
 * (for an <img>), anything else as a download of untyped bytes, each with a sandboxing CSP.
 */
async function serveOutputFile(
  response: ServerResponse,
  url: URL,
  options: InspectorOptions,
  key: { appName: string; userId: string; sessionId: string },
): Promise<void> {
  if (options.workspacesDir === undefined || options.store === undefined)
    return send(
      response,
      404,
      'text/plain; charset=utf-8',
      'output files are not served: the inspector was started without --workspaces',
    );
  const run = Number(url.searchParams.get('run'));
  if (!(Number.isInteger(run) && run >= 1))
    return send(
      response,
      400,
      'text/plain; charset=utf-8',
      'run must be the version of the event holding the run (a whole number from 1)',
    );
  const name = url.searchParams.get('file');
  if (name === null)
    return send(response, 400, 'text/plain; charset=utf-8', 'file must name an output file of the run');
  const served = await readRunOutputFile(
    options.store,
    options.workspacesDir,
    { key, runVersion: run, name },
    options.maxOutputFileBytes,
  );
  sendFile(response, served);
}

/** One artifact a run saved (`?run=<event version>&name=<name>&version=<n>`), as output files are served. */
async function serveArtifact(
  response: ServerResponse,
  url: URL,
  store: SessionStore,
  artifacts: ArtifactStore | undefined,
  key: { appName: string; userId: string; sessionId: string },
  maxBytes: number | undefined,
): Promise<void> {
  const text = 'text/plain; charset=utf-8';
  if (artifacts === undefined)
    return send(response, 404, text, 'artifacts are not served: the inspector was started without --workspaces');
  const run = Number(url.searchParams.get('run'));
  if (!(Number.isInteger(run) && run >= 1))
    return send(response, 400, text, 'run must be the version of the event holding the run (a whole number from 1)');
  const version = Number(url.searchParams.get('version'));
  if (!(Number.isInteger(version) && version >= 1))
    return send(response, 400, text, 'version must be the artifact version (a whole number from 1)');
  const name = url.searchParams.get('name');
  if (name === null || name === '') return send(response, 400, text, 'name must name an artifact the run saved');
  sendFile(response, await readRunArtifact(store, artifacts, { key, runVersion: run, name, version }, maxBytes));
}

/** A served file, or the refusal in words. Never a page: see serveOutputFile. */
function sendFile(response: ServerResponse, served: ServedOutputFile | Refusal): void {
  if ('status' in served) {
    send(response, served.status, 'text/plain; charset=utf-8', served.reason);
    return;
  }
  const disposition = `${served.inline ? 'inline' : 'attachment'}; filename="${served.fileName.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(served.fileName)}`;
  response.writeHead(200, {
    'content-type': served.contentType,
    'content-length': served.data.length,
    'content-disposition': disposition,
    ...securityHeaders,
    // Opened on its own, it is still no document: no script, no plugins, a unique origin.
    'content-security-policy': "default-src 'none'; sandbox",
  });
  response.end(served.data);
}

/** Longest user or app name a request may ask for: names are keys, not text. */
const longestOwnerName = 256;

/**
 * Whose sessions a request asks for: `user` and `app` from its query, else the server's defaults
 * (`--user`, `--app`); the store's public API lists one user's sessions in one app, never all of
 * them, so the page filters by naming them. A string is the refusal.
 */
function sessionOwner(url: URL, options: InspectorOptions): { user: string; app: string } | string {
  const user = url.searchParams.get('user') ?? options.userId;
  const app = url.searchParams.get('app') ?? options.appName ?? 'default';
  for (const [field, value] of [
    ['user', user],
    ['app', app],
  ] as const) {
    if (value.trim() === '' || value.length > longestOwnerName || /\p{Cc}/u.test(value))
      return `${field} must be a name of 1 to ${longestOwnerName} characters without control characters`;
  }
  return { user, app };
}

function send(response: ServerResponse, status: number, type: string, body: string | Buffer): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(status, { 'content-type': type, ...securityHeaders });
  response.end(body);
}

function json(response: ServerResponse, value: unknown): void {
  send(response, 200, 'application/json; charset=utf-8', JSON.stringify(value));
}

/** One checker for the server's life (its probes are cached per runtime), its runtime made on first use. */
function lazyRequirementChecker(given: WorkspaceRuntime | undefined): RequirementCheckerSource {
  let made: ReturnType<RequirementCheckerSource> | undefined;
  return () => {
    made ??= (async () => {
      // Loaded only here: the runtimes bring their option schemas, and most libraries declare nothing.
      const runtime =
        given ?? (await import('../runtime/create-runtime.js')).createRuntime({ kind: 'auto', hostFallback: true });
      return { checker: createRequirementChecker({ runtime, environment: {}, network: false }), where: runtime.kind };
    })();
    // A failure (a container engine down) is said on this request and tried again on the next.
    made.catch(() => {
      made = undefined;
    });
    return made;
  };
}
