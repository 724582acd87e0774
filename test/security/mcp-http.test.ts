import { request } from 'node:http';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../../src/config/config-error.js';
import { type HttpSkillServer, serveSkillsOverHttp } from '../../src/integrations/mcp/http-server.js';
import { FsSkillRepository } from '../../src/repository/fs-skill-repository.js';

// Streamable HTTP is the first skillbox MCP transport another process can reach without being
// started by the host: every attack here is one a web page or a local user could make.
const examples = resolve(import.meta.dirname, '../../examples/skills');
let server: HttpSkillServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(
  options: {
    token?: string;
    maxSessions?: number;
    maxBodyBytes?: number;
    sessionReclaimAfterMs?: number;
    sessionWaitMs?: number;
  } = {},
): Promise<HttpSkillServer> {
  const repository = await FsSkillRepository.open({ roots: [examples] });
  server = await serveSkillsOverHttp({ repository, port: 0, log: () => undefined, ...options });
  return server;
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'attacker', version: '1' } },
});

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A POST with exactly the headers given (fetch would not let a test forge Host). */
function post(url: string, headers: Record<string, string>, body: string | Buffer = initialize): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolvePromise, reject) => {
    const outgoing = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: {
          host: target.host,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolvePromise({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    // The server may answer and close before a large body is all sent; that is the expected refusal.
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') return;
      reject(error);
    });
    outgoing.end(body);
  });
}

function errorMessage(response: RawResponse): string {
  return (JSON.parse(response.body) as { error: { message: string } }).error.message;
}

/** A real SDK client that connects and lists skills: "the server still answers". */
async function clientWorks(url: string, token?: string): Promise<boolean> {
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } },
  );
  const client = new Client({ name: 'next-client', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  await client.close();
  return tools.some((tool) => tool.name === 'skill_load');
}

describe('skillbox mcp over HTTP refuses attacks and stays up', () => {
  it('refuses a foreign Host (DNS rebinding) before creating a session', async () => {
    const http = await start();
    const response = await post(http.url, { host: `evil.example:${new URL(http.url).port}` });
    expect(response.status).toBe(403);
    expect(errorMessage(response)).toContain('Host "evil.example');
    expect(http.sessionCount()).toBe(0);
    expect(await clientWorks(http.url)).toBe(true);
  });

  it('refuses a foreign Origin (a web page calling the loopback server)', async () => {
    const http = await start();
    const response = await post(http.url, { origin: 'http://evil.example' });
    expect(response.status).toBe(403);
    expect(errorMessage(response)).toBe('Origin "http://evil.example" is not allowed');
    expect(http.sessionCount()).toBe(0);
    const ownOrigin = await post(http.url, { origin: `http://127.0.0.1:${new URL(http.url).port}` });
    expect(ownOrigin.status).toBe(200);
  });

  it('with a token, refuses a request without it or with a wrong one, and serves the right one', async () => {
    const http = await start({ token: 's3cret-token' });
    const missing = await post(http.url, {});
    expect(missing.status).toBe(401);
    const wrong = await post(http.url, { authorization: 'Bearer s3cret-tokem' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).not.toContain('s3cret');
    expect(http.sessionCount()).toBe(0);
    expect(await clientWorks(http.url, 's3cret-token')).toBe(true);
  });

  it('refuses to listen beyond loopback without a token', async () => {
    const repository = await FsSkillRepository.open({ roots: [examples] });
    await expect(serveSkillsOverHttp({ repository, port: 0, host: '0.0.0.0' })).rejects.toThrow(SkillboxConfigError);
    await expect(serveSkillsOverHttp({ repository, port: 0, host: '0.0.0.0' })).rejects.toThrow(/needs a token/);
  });

  it('answers a 10 MB body with 413 without reading it, and goes on serving', async () => {
    const http = await start();
    const huge = Buffer.alloc(10 * 1024 * 1024, 32);
    const declared = await post(http.url, {}, huge);
    expect(declared.status).toBe(413);
    // Chunked, with no Content-Length to check first: the limit applies while reading.
    const chunked = await post(http.url, { 'transfer-encoding': 'chunked' }, huge);
    expect(chunked.status).toBe(413);
    expect(await clientWorks(http.url)).toBe(true);
  });

  it('bounds 200 sessions opened at once to its limit, and serves the next client once one ends', async () => {
    // The flood's sessions never become idle long enough to reclaim within the test: only the bound holds them off.
    const http = await start({ maxSessions: 32, sessionReclaimAfterMs: 60_000, sessionWaitMs: 300 });
    const responses = await Promise.all(Array.from({ length: 200 }, () => post(http.url, {})));
    const accepted = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status === 503);
    expect(accepted.length).toBe(32);
    expect(refused.length).toBe(168);
    expect(errorMessage(refused[0] as RawResponse)).toContain('32 sessions open, its limit');
    // Each refusal says when to come back; 4 × 32 waited the 300 ms, the other 40 were refused at once.
    expect(refused.every((response) => Number(response.headers['retry-after']) >= 1)).toBe(true);
    expect(http.sessionStats()).toMatchObject({ open: 32, waiting: 0, peak: 32, reclaimed: 0, refused: 168 });
    expect(http.sessionCount()).toBe(32);
    // Ending one session (DELETE, as a client that leaves does) makes room for the next client.
    const sessionId = accepted[0]?.headers['mcp-session-id'] as string;
    await new Promise<void>((resolvePromise, reject) => {
      const target = new URL(http.url);
      request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'DELETE',
          headers: { 'mcp-session-id': sessionId },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolvePromise());
        },
      )
        .on('error', reject)
        .end();
    });
    expect(http.sessionCount()).toBe(31);
    expect(await clientWorks(http.url)).toBe(true);
  }, 60_000);

  it('refuses a request that names an unknown session, and one that is neither initialize nor in a session', async () => {
    const http = await start();
    const unknown = await post(http.url, { 'mcp-session-id': 'not-a-session' });
    expect(unknown.status).toBe(404);
    const notInitialize = await post(http.url, {}, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    expect(notInitialize.status).toBe(400);
  });
});
