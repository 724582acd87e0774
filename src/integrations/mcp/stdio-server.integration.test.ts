import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';

const repositoryRoot = resolve(import.meta.dirname, '../../..');
const entry = resolve(import.meta.dirname, 'testing/serve-from-cli.ts');
const tsx = resolve(repositoryRoot, 'node_modules/.bin/tsx');

function text(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

describe('skillbox mcp on stdio, spawned as a host would', () => {
  it('serves the full profile: skill_load returns the body and skill_run runs the skill script in the workspace', async () => {
    const transport = new StdioClientTransport({
      command: tsx,
      args: [entry, '--root', resolve(repositoryRoot, 'examples/skills'), '--profile', 'full'],
      cwd: repositoryRoot,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    const client = new Client({ name: 'e2e-client', version: '1.0.0' });
    // A line on standard output that is not a protocol message reaches the client as an error.
    const protocolErrors: Error[] = [];
    client.onerror = (error) => void protocolErrors.push(error);
    try {
      await client.connect(transport);
      expect(client.getInstructions()).toContain('- python-math: ');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([
        'skill_load',
        'skill_list_docs',
        'skill_select_docs',
        'skill_read',
        'skill_run',
        'workspace_exec',
        'workspace_write_stdin',
        'workspace_poll',
        'workspace_kill',
        'workspace_list',
        'workspace_read',
        'workspace_write',
        'workspace_edit',
        'workspace_glob',
        'workspace_grep',
      ]);

      const loaded = (await client.callTool({
        name: 'skill_load',
        arguments: { skill: 'python-math' },
      })) as CallToolResult;
      expect(text(loaded)).toContain('# Python math');

      const ran = (await client.callTool({
        name: 'skill_run',
        arguments: { skill: 'python-math', command: 'python3 scripts/fib.py 10' },
      })) as CallToolResult;
      expect(ran.isError).toBeFalsy();
      const result = JSON.parse(text(ran)) as { exit_code: number; stdout: string };
      expect(result.exit_code).toBe(0);
      expect(result.stdout).toContain('34');
      expect(stderr).toContain('skillbox mcp: serving 4 skills (profile full) on stdio');
      expect(protocolErrors).toEqual([]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('answers a message over 10 MiB with a JSON-RPC error and goes on serving', async () => {
    const transport = new StdioClientTransport({
      command: tsx,
      args: [entry, '--root', resolve(repositoryRoot, 'examples/skills')],
      cwd: repositoryRoot,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'oversized-client', version: '1.0.0' });
    let closed = false;
    client.onclose = () => void (closed = true);
    try {
      await client.connect(transport);
      const oversized = 'x'.repeat(11 * 1024 * 1024);
      const refused = await client.callTool({ name: 'skill_load', arguments: { skill: oversized } }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).code).toBe(-32600);
      expect((refused as McpError).message).toMatch(
        /message of \d+ bytes is over the 10485760-byte limit for one stdio message/,
      );
      // The server is still there and answers the next request.
      const loaded = (await client.callTool({
        name: 'skill_load',
        arguments: { skill: 'python-math' },
      })) as CallToolResult;
      expect(text(loaded)).toContain('# Python math');
      expect(closed).toBe(false);
    } finally {
      await client.close();
    }
  }, 60_000);
});
