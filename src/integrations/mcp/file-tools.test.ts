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
let client: Client;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-mcp-file-tools-'));
  const repository = await FsSkillRepository.open({ roots: [examples] });
  workspaces = createWorkspaceManager({ runtime: createRuntime({ kind: 'local' }), repository, baseDir: scratch });
  const served = await createSkillMcpServer({
    repository,
    profile: 'full',
    executionTools: createExecutionTools({ workspaces, fileTools: true }),
    sessionId: 'mcp-files',
    log: () => undefined,
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'file-tools-test', version: '1.0.0' });
  await served.server.connect(serverTransport);
  await client.connect(clientTransport);
});
afterAll(async () => {
  await client.close();
  await workspaces.cleanup('mcp-files');
  await rm(scratch, { recursive: true, force: true });
});

async function call(name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    isError: result.isError === true,
    text: result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n'),
  };
}

describe('the file tools over MCP (the real SDK client)', () => {
  it('are listed with annotations a host can gate on: reads read-only, writes destructive', async () => {
    const { tools } = await client.listTools();
    const annotations = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
    for (const name of ['workspace_list', 'workspace_read', 'workspace_glob', 'workspace_grep'])
      expect(annotations[name]).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    for (const name of ['workspace_write', 'workspace_edit'])
      expect(annotations[name]).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
  });

  it('write, edit and read a file; a failed edit is a tool error the model can read', async () => {
    expect(await call('workspace_write', { path: 'work/todo.txt', content: 'buy milk\n' })).toMatchObject({
      isError: false,
    });
    expect(
      await call('workspace_edit', { path: 'work/todo.txt', old_string: 'milk', new_string: 'bread' }),
    ).toMatchObject({
      isError: false,
    });
    const read = await call('workspace_read', { path: 'work/todo.txt' });
    expect(read.text).toContain('     1\\tbuy bread');
    const failed = await call('workspace_edit', { path: 'work/todo.txt', old_string: 'eggs', new_string: 'ham' });
    expect(failed.isError).toBe(true);
    expect(failed.text).toContain('old_string was not found');
  });
});
