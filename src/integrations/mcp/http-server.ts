import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { SkillboxConfigError } from '../../config/config-error.js';
import { nodeHttp } from '../../node-http.js';
import { defaultAllowedHosts, isLoopbackHost, type RequestGuardSettings, refuseRequest } from './http-request-guard.js';
import { HttpSessionSlots, type SessionSlotStats } from './http-session-slots.js';
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
  /**
   * Most MCP sessions at once (default 128: 12 to 80 MB of server memory at the measured 0.1 to
   * 0.6 MB per session, by catalog size; docs/mcp.md). When all are taken, the least recently
   * used idle session is ended to make room (see `sessionReclaimAfterMs`), else a new session
   * waits `sessionWaitMs`.
   */
  maxSessions?: number;
  /** A session with no request this long (and none in flight) is closed, even one with background processes (default 30 minutes). */
  sessionIdleMs?: number;
  /**
   * With every session slot taken, a session with no request in flight, no open stream and no
   * background process for this long (at once when its client closed its GET stream) may be ended,
   * as DELETE ends it, to make room for a new one (default 2,000 ms). Never below the limit.
   */
  sessionReclaimAfterMs?: number;
  /**
   * How long a new session waits for a slot when none is free and no session is idle (default
   * 10,000 ms; at most 60,000, when SDK clients give up on a request); then 503 with Retry-After.
   * 0 refuses at once. At most 4 × `maxSessions` new sessions wait; more are refused at once.
   */
  sessionWaitMs?: number;
  /** Watch the repository and notify every session when skills change (see `serveSkillsOverStdio`). Default false. */
  watch?: boolean;
}

/** A running HTTP skill server. */
export interface HttpSkillServer {
  /** The MCP endpoint, for example `http://127.0.0.1:3000/mcp`. */
  url: string;
  /** How many MCP sessions are open. */
  sessionCount(): number;
  /** Sessions open and waiting, the most slots ever taken at once, and how many were reclaimed or refused. */
  sessionStats(): SessionSlotStats;
  /** Each open session's server, for callers that notify or inspect them. */
  sessions(): SkillMcpServer[];
  /** Stops listening and closes every session. */
  close(): Promise<void>;
}

interface OpenSession {
  served: SkillMcpServer;
  transport: StreamableHTTPServerTransport;
}

/** Defaults of the session limits; docs/mcp.md says how they were sized. */
const defaultHttpSessionLimits = {
  maxSessions: 128,
  sessionIdleMs: 30 * 60 * 1000,
  sessionReclaimAfterMs: 2_000,
  sessionWaitMs: 10_000,
} as const;

/** New sessions waiting for a slot at once, per slot: a burst of 4 × the limit waits instead of failing. */
const waitingPerSlot = 4;
// SDK clients give up on a request after 60 s by default: waiting longer only holds a socket.
const longestWaitMs = 60_000;

function wholeNumber(value: number | undefined, field: string, fallback: number, least: 0 | 1, most?: number): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < least || (most !== undefined && chosen > most)) {
    const kind =
      most !== undefined
        ? `a whole number from ${least} to ${most}`
        : least === 1
          ? 'a positive whole number'
          : 'a whole number, 0 or more';
    throw new SkillboxConfigError('serveSkillsOverHttp', [
      { option: field, problem: `must be ${kind}; got ${String(value)}` },
    ]);
  }
  return chosen;
}

function sendError(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...headers });
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
    sessionReclaimAfterMs: _sessionReclaimAfterMs,
    sessionWaitMs: _sessionWaitMs,
    watch = false,
    ...serverOptions
  } = options;
  const { maxBodyBytes, maxSessions, sessionIdleMs, reclaimAfterMs, waitMs } = checkHttpServerOptions(options);
  // Fails now, not on the first client, when the options are wrong.
  await createSkillMcpServer(serverOptions);

  // Sessions being set up and being ended count against the limit too: memory is what it bounds.
  const sessions = new HttpSessionSlots<OpenSession>({
    maxSessions,
    reclaimAfterMs,
    waitMs,
    maxWaiting: waitingPerSlot * maxSessions,
    holdsWork: (session) => session.served.holdsWork(),
    // As DELETE ends a session: the transport closes (onclose below), its processes and workspace go.
    end: async (session) => {
      await session.transport.close();
      await session.served.endSession();
    },
  });
  let guard: RequestGuardSettings | undefined;

  const startSession = (request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> =>
    startMcpSession(sessions, serverOptions, request, response, body);

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
    const body = await readJsonBody(request, response, maxBodyBytes);
    if (body === refused) return;
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (session === undefined) {
        sendError(response, 404, -32001, 'no such session; start a new one with initialize');
        return;
      }
      // An open GET stream is a client listening for server messages: the session is in use while it lasts.
      sessions.track(sessionId, request.method === 'GET' ? 'stream' : 'request', response);
      await session.transport.handleRequest(request, response, body);
      return;
    }
    if (request.method === 'POST' && isInitializeRequest(body)) {
      await startSession(request, response, body);
      return;
    }
    sendError(response, 400, -32000, 'a request without an Mcp-Session-Id header must be an initialize request');
  };

  const httpServer: Server = nodeHttp().createServer((request, response) => {
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
  const sweeper = setInterval(() => sessions.sweep(sessionIdleMs), Math.min(sessionIdleMs, 60_000));
  sweeper.unref();

  const log = serverOptions.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const watcher = watch
    ? watchSkillChanges(
        serverOptions.repository,
        async () => {
          await Promise.all(sessions.sessions().map((session) => session.served.notifySkillsChanged()));
        },
        log,
      )
    : undefined;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${bound}/mcp`,
    sessionCount: () => sessions.size,
    sessionStats: () => sessions.stats(),
    sessions: () => sessions.sessions().map((session) => session.served),
    close: async () => {
      clearInterval(sweeper);
      watcher?.close();
      await sessions.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

/** The HTTP options checked by hand (the MCP server's own options are its schema's), with their defaults. */
function checkHttpServerOptions(options: HttpSkillServerOptions): {
  maxBodyBytes: number;
  maxSessions: number;
  sessionIdleMs: number;
  reclaimAfterMs: number;
  waitMs: number;
} {
  const { port, host = '127.0.0.1', token } = options;
  if (!Number.isSafeInteger(port) || port < 0 || port > 65535)
    throw new SkillboxConfigError('serveSkillsOverHttp', [
      { option: 'port', problem: `must be a TCP port (0 to 65535); got ${String(port)}` },
    ]);
  if (token !== undefined && token.trim() === '')
    throw new SkillboxConfigError('serveSkillsOverHttp', [{ option: 'token', problem: 'must not be empty' }]);
  if (token === undefined && !isLoopbackHost(host))
    throw new SkillboxConfigError('serveSkillsOverHttp', [
      { option: 'host', problem: `${host} is reachable from other machines; serving there needs a token` },
    ]);
  const maxBodyBytes = wholeNumber(options.maxBodyBytes, 'maxBodyBytes', 4 * 1024 * 1024, 1);
  const limits = defaultHttpSessionLimits;
  const maxSessions = wholeNumber(options.maxSessions, 'maxSessions', limits.maxSessions, 1);
  const sessionIdleMs = wholeNumber(options.sessionIdleMs, 'sessionIdleMs', limits.sessionIdleMs, 1);
  const reclaimAfterMs = wholeNumber(
    options.sessionReclaimAfterMs,
    'sessionReclaimAfterMs',
    limits.sessionReclaimAfterMs,
    0,
  );
  const waitMs = wholeNumber(options.sessionWaitMs, 'sessionWaitMs', limits.sessionWaitMs, 0, longestWaitMs);
  return { maxBodyBytes, maxSessions, sessionIdleMs, reclaimAfterMs, waitMs };
}

/** An initialize request: a slot (waiting for one, or 503), then a server and transport of its own. */
async function startMcpSession(
  sessions: HttpSessionSlots<OpenSession>,
  serverOptions: SkillMcpServerOptions,
  request: IncomingMessage,
  response: ServerResponse,
  body: unknown,
): Promise<void> {
  const gone = new AbortController();
  response.once('close', () => gone.abort());
  const slot = await sessions.acquire(gone.signal);
  if (!slot.granted) {
    sendError(response, 503, -32000, slot.message, { 'retry-after': String(slot.retryAfterSeconds) });
    return;
  }
  try {
    const served = await createSkillMcpServer(serverOptions);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        slot.fill(sessionId, { served, transport });
        sessions.track(sessionId, 'request', response);
      },
    });
    // DELETE, the idle sweep, reclaiming and close() all end here: the session's processes and workspace go with it.
    transport.onclose = () => {
      const ending = served.endSession();
      if (transport.sessionId !== undefined) sessions.release(transport.sessionId, ending);
    };
    await served.server.connect(transport);
    await transport.handleRequest(request, response, body);
  } finally {
    // A session that never got its id (a failed initialize) gives its slot back.
    slot.release();
  }
}

/** Marks a request whose body was refused (the answer is already sent). */
const refused = Symbol('refused');

/** A POST's JSON body within `maxBodyBytes`, or `refused` after answering 413/400; undefined for other methods. */
async function readJsonBody(
  request: IncomingMessage,
  response: ServerResponse,
  maxBodyBytes: number,
): Promise<unknown | typeof refused> {
  if (request.method !== 'POST') return undefined;
  const declared = Number(request.headers['content-length'] ?? '0');
  if (declared > maxBodyBytes) {
    refuseBody(request, response, `the body of ${declared} bytes is over the ${maxBodyBytes}-byte limit`);
    return refused;
  }
  const bytes = await readBody(request, maxBodyBytes);
  if (bytes === undefined) {
    refuseBody(request, response, `the body is over the ${maxBodyBytes}-byte limit`);
    return refused;
  }
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    sendError(response, 400, -32700, 'the body is not JSON');
    return refused;
  }
}
