import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type HttpSkillServer, serveSkillsOverHttp } from '../../src/integrations/mcp/http-server.js';
import { createSkillMcpServer } from '../../src/integrations/mcp/skill-mcp-server.js';
import { createFsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import type { SkillRepository } from '../../src/repository/types.js';
import type { RuntimeProcessExit } from '../../src/runtime/runtime-process.js';
import { SandboxRuntime } from '../../src/runtime/sandbox-runtime.js';
import { createExecutionTools } from '../../src/workspace/tools/execution-tools.js';
import { createWorkspaceManager, type WorkspaceManager } from '../../src/workspace/workspace-manager.js';

// A client that opens MCP sessions, starts long-lived background processes and goes away (DELETE,
// or just stops talking) must not leave them running for their whole lifetime: a few clients
// would fill the host with processes nobody can reach any more.
describe.runIf(process.platform === 'linux')('MCP security: background processes end with the MCP session', () => {
  let root: string;
  let repository: SkillRepository;
  let workspaces: WorkspaceManager;
  let server: HttpSkillServer | undefined;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'skillbox-mcp-session-end-'));
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

  async function serve(options: { sessionIdleMs?: number } = {}): Promise<HttpSkillServer> {
    server = await serveSkillsOverHttp({
      repository,
      port: 0,
      profile: 'full',
      executionTools: createExecutionTools({ workspaces, backgroundProcesses: true }),
      log: () => undefined,
      ...options,
    });
    return server;
  }

  /** Connects, starts `sleep` in the background, and returns what the host knows of it. */
  async function startSleeper(url: string) {
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const client = new Client({ name: 'leaver', version: '1.0.0' });
    await client.connect(transport);
    const started = (await client.callTool({
      name: 'workspace_exec',
      arguments: { command: 'exec sleep 600', background: true, yield_ms: 0 },
    })) as CallToolResult;
    expect(started.isError).toBeFalsy();
    const text = started.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    const processId = (JSON.parse(text) as { process_id: string }).process_id;
    const sessionId = (server as HttpSkillServer).sessions()[0]?.sessionId as string;
    const workspace = await workspaces.workspace(sessionId);
    const record = workspace.processes.get(processId);
    expect(record.exit).toBeUndefined();
    return { client, transport, record, root: workspace.root };
  }

  const endsWithin = (exited: Promise<RuntimeProcessExit>, ms: number) =>
    Promise.race([exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), ms))]);
  const exists = (folder: string) =>
    stat(folder).then(
      () => true,
      () => false,
    );

  it('kills them and removes the workspace when the client ends its session (DELETE)', async () => {
    const { url } = await serve();
    const { client, transport, record, root: workspaceRoot } = await startSleeper(url);
    await transport.terminateSession();
    await client.close();
    expect(await endsWithin(record.handle.exited, 10_000)).toMatchObject({ killed: true });
    // Nobody can name the session again: its workspace is not left for the expiry sweep.
    await (server as HttpSkillServer).close();
    expect(await exists(workspaceRoot)).toBe(false);
  }, 30_000);

  it('kills them when the session is closed for being unused', async () => {
    const { url } = await serve({ sessionIdleMs: 300 });
    const { record } = await startSleeper(url);
    expect(await endsWithin(record.handle.exited, 10_000)).toMatchObject({ killed: true });
    expect((server as HttpSkillServer).sessionCount()).toBe(0);
  }, 30_000);

  it('kills them when the server closes', async () => {
    const { url } = await serve();
    const { record, root: workspaceRoot } = await startSleeper(url);
    await (server as HttpSkillServer).close();
    server = undefined;
    expect(await endsWithin(record.handle.exited, 1_000)).toMatchObject({ killed: true });
    expect(await exists(workspaceRoot)).toBe(false);
  }, 30_000);

  it('keeps the workspace of a session the caller named, stopping only its processes', async () => {
    const served = await createSkillMcpServer({
      repository,
      profile: 'full',
      executionTools: createExecutionTools({ workspaces, backgroundProcesses: true }),
      sessionId: 'named-session',
      log: () => undefined,
    });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'named', version: '1.0.0' });
    await served.server.connect(serverTransport);
    await client.connect(clientTransport);
    await client.callTool({ name: 'workspace_exec', arguments: { command: 'echo kept > out/kept.txt' } });
    await client.callTool({
      name: 'workspace_exec',
      arguments: { command: 'exec sleep 600', background: true, yield_ms: 0 },
    });
    const workspace = await workspaces.workspace('named-session');
    const [record] = workspace.processes.list();
    await client.close();
    await served.endSession();
    expect(await endsWithin((record as NonNullable<typeof record>).handle.exited, 1_000)).toMatchObject({
      killed: true,
    });
    expect(await exists(path.join(workspace.root, 'out', 'kept.txt'))).toBe(true);
    await workspaces.cleanup('named-session');
  }, 30_000);
});
