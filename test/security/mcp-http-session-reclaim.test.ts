import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type HttpSkillServer, serveSkillsOverHttp } from '../../src/integrations/mcp/http-server.js';
import { createFsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import type { SkillRepository } from '../../src/repository/types.js';
import { SandboxRuntime } from '../../src/runtime/sandbox-runtime.js';
import { createExecutionTools } from '../../src/workspace/tools/execution-tools.js';
import { createWorkspaceManager, type WorkspaceManager } from '../../src/workspace/workspace-manager.js';

// A server with a session limit can be locked by anyone who opens sessions and walks away, and a
// server that ends idle sessions to make room can be turned against a client whose session is
// busy: both are attacks of one client on the others. The limit here is 4.
const limit = 4;

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

/** An initialize with no client behind it: the session is opened and never used again, never ended. */
function openAndWalkAway(url: string): Promise<RawResponse> {
  const target = new URL(url);
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flooder', version: '1' } },
  });
  return new Promise((resolvePromise, reject) => {
    request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolvePromise({ status: response.statusCode ?? 0, headers: response.headers }));
      },
    )
      .on('error', reject)
      .end(body);
  });
}

/** The server-side id (its workspace's session) of the session a connect just opened. */
async function connectNamed(http: HttpSkillServer) {
  const before = new Set(http.sessions().map((session) => session.sessionId));
  const connected = await connect(http.url);
  const opened = http.sessions().find((session) => !before.has(session.sessionId));
  return { ...connected, workspaceSession: opened?.sessionId as string };
}

async function connect(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'victim', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

function text(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

describe.runIf(process.platform === 'linux')('MCP over HTTP: one client cannot lock out or evict the others', () => {
  let root: string;
  let repository: SkillRepository;
  let workspaces: WorkspaceManager;
  let server: HttpSkillServer | undefined;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'skillbox-mcp-reclaim-'));
    await mkdir(path.join(root, 'skills', 'probe'), { recursive: true });
    await writeFile(path.join(root, 'skills', 'probe', 'SKILL.md'), '---\nname: probe\ndescription: Probes.\n---\nx\n');
    repository = await createFsSkillRepository({ roots: [path.join(root, 'skills')] });
    workspaces = createWorkspaceManager({
      runtime: new SandboxRuntime(),
      repository,
      baseDir: path.join(root, 'workspaces'),
    });
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function serve(options: { sessionWaitMs?: number } = {}): Promise<HttpSkillServer> {
    server = await serveSkillsOverHttp({
      repository,
      port: 0,
      watch: false,
      profile: 'full',
      executionTools: createExecutionTools({ workspaces, backgroundProcesses: true }),
      maxSessions: limit,
      sessionReclaimAfterMs: 200,
      sessionWaitMs: 1_500,
      log: () => undefined,
      ...options,
    });
    return server;
  }

  it('a client that opens every session and walks away does not lock the next client out', async () => {
    const http = await serve();
    const flood = await Promise.all(Array.from({ length: limit }, () => openAndWalkAway(http.url)));
    expect(flood.map((response) => response.status)).toEqual(Array(limit).fill(200));
    // On 69af8f2 this connect got 503 for the next 30 minutes.
    const { client } = await connect(http.url);
    const listed = await client.listTools();
    expect(listed.tools.some((tool) => tool.name === 'skill_load')).toBe(true);
    await client.close();
    expect(http.sessionStats().peak).toBeLessThanOrEqual(limit);
    expect(http.sessionStats().reclaimed).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('a flood of sessions cannot evict a session whose client is connected, running a background process, or mid-call', async () => {
    const http = await serve();
    // Connected and listening (the SDK client keeps a GET stream open), otherwise idle.
    const listening = await connectNamed(http);
    // Gone (close() only), but a background process of its own still runs.
    const runner = await connectNamed(http);
    const started = (await runner.client.callTool({
      name: 'workspace_exec',
      arguments: { command: 'exec sleep 600', background: true, yield_ms: 0 },
    })) as CallToolResult;
    expect(started.isError).toBeFalsy();
    const runnerSession = runner.workspaceSession;
    const processId = (JSON.parse(text(started)) as { process_id: string }).process_id;
    const record = (await workspaces.workspace(runnerSession)).processes.get(processId);
    await runner.client.close();
    // Mid-call: a command that takes longer than the flood.
    const caller = await connectNamed(http);
    const inFlight = caller.client.callTool({ name: 'workspace_exec', arguments: { command: 'sleep 3; echo done' } });
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 500));

    const before = http.sessions().map((session) => session.sessionId);
    const flood = await Promise.all(Array.from({ length: 5 * limit }, () => openAndWalkAway(http.url)));
    for (const kept of [listening.workspaceSession, runnerSession, caller.workspaceSession])
      expect(http.sessions().map((session) => session.sessionId)).toContain(kept);
    expect(before).toHaveLength(3);
    // The one free slot went round the flood; the rest waited and were told when to come back.
    const refused = flood.filter((response) => response.status === 503);
    expect(flood.filter((response) => response.status === 200).length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused.every((response) => Number(response.headers['retry-after']) >= 1)).toBe(true);

    const finished = (await inFlight) as CallToolResult;
    expect(finished.isError).toBeFalsy();
    expect(text(finished)).toContain('done');
    expect(record.exit).toBeUndefined();
    expect((await listening.client.listTools()).tools.length).toBeGreaterThan(0);
    expect(http.sessionStats().peak).toBeLessThanOrEqual(limit);
    await listening.client.close();
    await caller.client.close();
  }, 60_000);

  it('a flood of waiting sessions is bounded: past 4 × the limit, new ones are refused at once', async () => {
    const http = await serve({ sessionWaitMs: 3_000 });
    // Every slot busy: connected clients, listening.
    const holders = await Promise.all(Array.from({ length: limit }, () => connect(http.url)));
    let mostWaiting = 0;
    const watch = setInterval(() => {
      mostWaiting = Math.max(mostWaiting, http.sessionStats().waiting);
    }, 20);
    const flood = await Promise.all(Array.from({ length: 10 * limit }, () => openAndWalkAway(http.url)));
    clearInterval(watch);
    expect(flood.every((response) => response.status === 503)).toBe(true);
    expect(mostWaiting).toBeLessThanOrEqual(4 * limit);
    expect(mostWaiting).toBeGreaterThan(0);
    expect(http.sessionStats()).toMatchObject({ open: limit, waiting: 0, reclaimed: 0, refused: 10 * limit });
    for (const holder of holders) await holder.client.close();
  }, 30_000);
});
