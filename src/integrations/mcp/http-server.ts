import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { SkillMcpConfigError } from './errors.js';
import { defaultAllowedHosts, isLoopbackHost, type RequestGuardSettings, refuseRequest } from './http-request-guard.js';
import { createSkillMcpServer, type SkillMcpServer, type SkillMcpServerOptions } from './skill-mcp-server.js';
import { watchSkillChanges } from './watch-skill-changes.js';

/** Options of `serveSkillsOverHttp`: the server options (without `sessionId`: each MCP session gets its own) and the HTTP settings. */
export interface HttpSkillServerOptions extends Omit<SkillMcpServerOptions, 'sessionId'> {
  /** The TCP port; 0 picks a free one (see `url` of the result). */
  port: number;
  /** The address to listen on (default `127.0.0.1`). Anything but loopback needs `token`. */
  host?: string;
  /** A bearer token every request must carry (`Authorization: Bearer TOKEN`). */
  token?: string;
  /** More Host header values to accept (`name:port`), for a server reached under another name. */
  allowedHosts?: readonly string[];
  /** More Origin header values to accept (`scheme://name:port`). */
  allowedOrigins?: readonly string[];
  /** Most bytes of one request body (default 4 MiB); a larger one gets 413. */
  maxBodyBytes?: number;
  /** Most MCP sessions open at once (default 32); one more gets 503 until a session ends. */
  maxSessions?: number;
  /** A session unused this long is closed (default 30 minutes). */
  sessionIdleMs?: number;
  /** Watch the repository and notify every session when skills change (see `serveSkillsOverStdio`). Default false. */
  watch?: boolean;
}

/** A running HTTP skill server. */
export interface HttpSkillServer {
  /** The MCP endpoint, for example `http://127.0.0.1:3000/mcp`. */
  url: string;
  /** How many MCP sessions are open. */
  sessionCount(): number;
  /** Each open session's server, for callers that notify or inspect them. */
  sessions(): SkillMcpServer[];
  /** Stops listening and closes every session. */
  close(): Promise<void>;
}

interface OpenSession {
  served: SkillMcpServer;
  transport: StreamableHTTPServerTransport;
  lastUsed: number;
}

function positiveInteger(value: number | undefined, field: string, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < 1)
    throw new SkillMcpConfigError('serveSkillsOverHttp', [
      { option: field, problem: `must be a positive whole number; got ${String(value)}` },
    ]);
  return chosen;
}

function sendError(response: ServerResponse, status: number, code: number, message: string): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/**
 * Answers 413 and drops the rest of the body. Destroying the socket at once could reset the
 * connection before the client reads the answer (unread data makes the kernel send RST), so what
 * still arrives is read and thrown away, never kept, for a short grace period; a client still
 * sending after it is cut off.
 */
function refuseBody(request: IncomingMessage, response: ServerResponse, message: string): void {
  sendError(response, 413, -32600, message);
  request.resume();
  const cutOff = setTimeout(() => request.destroy(), 2_000);
  cutOff.unref();
  request.once('close', () => clearTimeout(cutOff));
}

/** Reads the body up to `limit` bytes; undefined once it is over (the rest is not read into memory). */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    request.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        resolve(undefined);
        // Stops reading; the rest of a huge upload is dropped by the closed connection.
        request.pause();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks));
    });
    request.on('error', reject);
  });
}

/**
 * Serves the skills over MCP's Streamable HTTP transport at `/mcp`: one MCP session per client,
 * each with its own server (its own disclosure state and, with the full profile, its own
 * workspace). Every request passes the Host/Origin check (DNS rebinding) and, when a token is
 * set, the bearer-token check, before its body is read; bodies and open sessions are bounded.
 */
export async function serveSkillsOverHttp(options: HttpSkillServerOptions): Promise<HttpSkillServer> {
  const {
    port,
    host = '127.0.0.1',
    token,
    allowedHosts = [],
    allowedOrigins = [],
    maxBodyBytes: _maxBodyBytes,
    maxSessions: _maxSessions,
    sessionIdleMs: _sessionIdleMs,
    watch = false,
    ...serverOptions
  } = options;
  if (!Number.isSafeInteger(port) || port < 0 || port > 65535)
    throw new SkillMcpConfigError('serveSkillsOverHttp', [
      { option: 'port', problem: `must be a TCP port (0 to 65535); got ${String(port)}` },
    ]);
  if (token !== undefined && token.trim() === '')
    throw new SkillMcpConfigError('serveSkillsOverHttp', [{ option: 'token', problem: 'must not be empty' }]);
  if (token === undefined && !isLoopbackHost(host))
    throw new SkillMcpConfigError('serveSkillsOverHttp', [
      { option: 'host', problem: `${host} is reachable from other machines; serving there needs a token` },
    ]);
  const maxBodyBytes = positiveInteger(options.maxBodyBytes, 'maxBodyBytes', 4 * 1024 * 1024);
  const maxSessions = positiveInteger(options.maxSessions, 'maxSessions', 32);
  const sessionIdleMs = positiveInteger(options.sessionIdleMs, 'sessionIdleMs', 30 * 60 * 1000);
  // Fails now, not on the first client, when the options are wrong.
  await createSkillMcpServer(serverOptions);

  const sessions = new Map<string, OpenSession>();
  // Sessions whose processes and workspace are still being released; close() waits for them.
  const endings = new Set<Promise<void>>();
  // Sessions being set up count against the limit too, or 200 simultaneous initializations would all pass it.
  let starting = 0;
  let guard: RequestGuardSettings | undefined;

  const startSession = async (request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> => {
    if (sessions.size + starting >= maxSessions) {
      sendError(response, 503, -32000, `the server has ${maxSessions} sessions open, its limit; try again later`);
      return;
    }
    starting += 1;
    let served: SkillMcpServer;
    let transport: StreamableHTTPServerTransport;
    try {
      served = await createSkillMcpServer(serverOptions);
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, { served, transport, lastUsed: Date.now() });
        },
      });
      // DELETE, the idle sweep and close() all end here: the session's processes and workspace go with it.
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
        const ending = served.endSession();
        endings.add(ending);
        void ending.finally(() => endings.delete(ending));
      };
      await served.server.connect(transport);
    } finally {
      starting -= 1;
    }
    await transport.handleRequest(request, response, body);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const refusal = refuseRequest(request, guard as RequestGuardSettings);
    if (refusal !== undefined) {
      sendError(response, refusal.status, -32000, refusal.message);
      return;
    }
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path !== '/mcp') {
      sendError(response, 404, -32000, `nothing is served at ${path}; the MCP endpoint is /mcp`);
      return;
    }
    let body: unknown;
    if (request.method === 'POST') {
      const declared = Number(request.headers['content-length'] ?? '0');
      if (declared > maxBodyBytes) {
        refuseBody(request, response, `the body of ${declared} bytes is over the ${maxBodyBytes}-byte limit`);
        return;
      }
      const bytes = await readBody(request, maxBodyBytes);
      if (bytes === undefined) {
        refuseBody(request, response, `the body is over the ${maxBodyBytes}-byte limit`);
        return;
      }
      try {
        body = JSON.parse(bytes.toString('utf8'));
      } catch {
        sendError(response, 400, -32700, 'the body is not JSON');
        return;
      }
    }
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (session === undefined) {
        sendError(response, 404, -32001, 'no such session; start a new one with initialize');
        return;
      }
      session.lastUsed = Date.now();
      await session.transport.handleRequest(request, response, body);
      return;
    }
    if (request.method === 'POST' && isInitializeRequest(body)) {
      await startSession(request, response, body);
      return;
    }
    sendError(response, 400, -32000, 'a request without an Mcp-Session-Id header must be an initialize request');
  };

  const httpServer: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      serverOptions.log?.(`skillbox mcp: HTTP request failed: ${(error as Error).stack ?? String(error)}`);
      sendError(response, 500, -32603, 'internal error');
    });
  });
  // Slow clients must not hold sockets forever: headers and bodies have a deadline.
  httpServer.headersTimeout = 10_000;
  httpServer.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, host, () => resolve());
  });
  const bound = (httpServer.address() as AddressInfo).port;
  const defaults = defaultAllowedHosts(host, bound);
  guard = {
    allowedHosts: new Set([...defaults.hosts, ...allowedHosts.map((value) => value.toLowerCase())]),
    allowedOrigins: new Set([...defaults.origins, ...allowedOrigins.map((value) => value.toLowerCase())]),
    ...(token === undefined ? {} : { token }),
  };
  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) {
        if (now - session.lastUsed > sessionIdleMs) {
          sessions.delete(id);
          void session.transport.close();
        }
      }
    },
    Math.min(sessionIdleMs, 60_000),
  );
  sweeper.unref();

  const log = serverOptions.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const watcher = watch
    ? watchSkillChanges(
        serverOptions.repository,
        async () => {
          await Promise.all([...sessions.values()].map((session) => session.served.notifySkillsChanged()));
        },
        log,
      )
    : undefined;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${bound}/mcp`,
    sessionCount: () => sessions.size,
    sessions: () => [...sessions.values()].map((session) => session.served),
    close: async () => {
      clearInterval(sweeper);
      watcher?.close();
      await Promise.all([...sessions.values()].map((session) => session.transport.close()));
      sessions.clear();
      await Promise.all([...endings]);
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
