import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import { createRuntime } from '../../runtime/create-runtime.js';
import { createExecutionTools } from '../../workspace/tools/execution-tools.js';
import { createWorkspaceManager, type WorkspaceManager } from '../../workspace/workspace-manager.js';
import { createSkillMcpServer } from './skill-mcp-server.js';

const examples = resolve(import.meta.dirname, '../../../examples/skills');
let scratch: string;
let workspaces: WorkspaceManager;
let repository: FsSkillRepository;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-mcp-background-'));
  repository = await FsSkillRepository.open({ roots: [examples] });
  workspaces = createWorkspaceManager({ runtime: createRuntime({ kind: 'local' }), repository, baseDir: scratch });
});
afterAll(async () => {
  for (const close of closers) await close();
  for (const session of ['mcp-owner', 'mcp-other']) await workspaces.cleanup(session);
  await rm(scratch, { recursive: true, force: true });
});

/** One MCP connection (its own session) to a server sharing the workspace manager. */
async function connect(sessionId: string) {
  const executionTools = createExecutionTools({ workspaces, backgroundProcesses: true });
  const served = await createSkillMcpServer({
    repository,
    profile: 'full',
    executionTools,
    sessionId,
    log: () => undefined,
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'background-test', version: '1.0.0' });
  await served.server.connect(serverTransport);
  await client.connect(clientTransport);
  closers.push(() => client.close());
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    return { isError: result.isError === true, text, json: () => JSON.parse(text) as Record<string, unknown> };
  };
  return { client, call };
}

describe('background processes over MCP', () => {
  it('lists the process tools with annotations, and runs an interactive program to its exit', async () => {
    const { client, call } = await connect('mcp-owner');
    const tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
    for (const name of ['workspace_write_stdin', 'workspace_poll', 'workspace_kill'])
      expect(tools.has(name)).toBe(true);
    expect(tools.get('workspace_exec')?.inputSchema.properties).toHaveProperty('background');
    expect(tools.get('workspace_poll')?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(tools.get('workspace_kill')?.annotations).toMatchObject({ destructiveHint: true });

    const started = await call('workspace_exec', {
      command: 'while read -r line; do echo "echo:$line"; done',
      background: true,
      yield_ms: 0,
    });
    expect(started.isError).toBe(false);
    const id = started.json().process_id as string;
    const echoed = await call('workspace_write_stdin', { process_id: id, chars: 'ping', submit: true, yield_ms: 3000 });
    expect(echoed.json()).toMatchObject({ status: 'running', stdout: 'echo:ping\n' });
    const closed = await call('workspace_write_stdin', { process_id: id, close_stdin: true, yield_ms: 3000 });
    const exited =
      closed.json().status === 'exited' ? closed : await call('workspace_poll', { process_id: id, yield_ms: 3000 });
    expect(exited.json()).toMatchObject({ status: 'exited', exit_code: 0, killed: false });
  });

  it("refuses another connection's process id with the reason, leaving the process running", async () => {
    const owner = await connect('mcp-owner');
    const other = await connect('mcp-other');
    const started = await owner.call('workspace_exec', { command: 'exec sleep 60', background: true, yield_ms: 0 });
    const id = started.json().process_id as string;
    for (const name of ['workspace_poll', 'workspace_kill', 'workspace_write_stdin']) {
      const refused = await other.call(name, { process_id: id, chars: 'x' });
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/unknown process id/);
    }
    expect((await owner.call('workspace_poll', { process_id: id, yield_ms: 0 })).json()).toMatchObject({
      status: 'running',
    });
    expect((await owner.call('workspace_kill', { process_id: id })).json()).toMatchObject({
      status: 'exited',
      killed: true,
    });
  });
});
