import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../../test/support/services.js';

const repositoryRoot = resolve(import.meta.dirname, '../../..');
const entry = resolve(repositoryRoot, 'src/integrations/mcp/testing/serve-from-cli.ts');
const tsx = resolve(repositoryRoot, 'node_modules/.bin/tsx');
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-mcp-approve-'));
  await mkdir(join(scratch, 'skills', 'logger'), { recursive: true });
  await writeFile(
    join(scratch, 'skills', 'logger', 'SKILL.md'),
    '---\nname: logger\ndescription: Appends to a log.\n---\nRun echo.\n',
  );
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const text = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

/** `skillbox mcp --profile full --approve` spawned as a host would, and a real MCP client answering its questions. */
async function connect(answers: ElicitResult[] | undefined) {
  const transport = new StdioClientTransport({
    command: tsx,
    args: [entry, '--root', join(scratch, 'skills'), '--profile', 'full', '--runtime', 'sandbox', '--approve'],
    cwd: repositoryRoot,
    env: { ...(process.env as Record<string, string>), TMPDIR: scratch },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const client = new Client(
    { name: 'approving-host', version: '1.0.0' },
    answers === undefined ? {} : { capabilities: { elicitation: { form: {} } } },
  );
  const asked: string[] = [];
  if (answers !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push((request.params as { message: string }).message);
      return answers.shift() ?? { action: 'cancel' };
    });
  }
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { client, call, asked, stderr: () => stderr };
}

const choose = (decision: string): ElicitResult => ({ action: 'accept', content: { decision } });

describe.runIf(sandboxWorks)('skillbox mcp --approve, through the real CLI and MCP client', () => {
  it('asks before each command with the exact command; a denied one runs nothing, an allowed one runs', async () => {
    const { client, call, asked, stderr } = await connect([
      choose('deny'),
      choose('allow-once'),
      choose('allow-once'),
      choose('deny'),
      choose('allow-once'),
    ]);
    try {
      expect(stderr()).toContain('(profile full, commands need approval)');
      const denied = await call('workspace_exec', { command: 'echo denied >> work/log' });
      expect(denied.isError).toBe(true);
      expect(text(denied)).toContain('Not run: the person denied workspace_exec (command: echo denied >> work/log)');
      expect(asked[0]).toContain('command: echo denied >> work/log');

      const allowed = await call('workspace_exec', { command: 'echo allowed >> work/log; cat work/log' });
      expect(JSON.parse(text(allowed))).toMatchObject({ exit_code: 0, stdout: 'allowed\n' });

      // A shell started with approval does not run later commands unasked.
      const shell = await call('workspace_exec', { command: 'bash', background: true, yield_ms: 0 });
      const processId = (JSON.parse(text(shell)) as { process_id: string }).process_id;
      const refused = await call('workspace_write_stdin', {
        process_id: processId,
        chars: 'echo sneaked >> work/log',
        submit: true,
      });
      expect(refused.isError).toBe(true);
      expect(asked[3]).toContain('command: echo sneaked >> work/log');
      const written = await call('workspace_write_stdin', {
        process_id: processId,
        chars: 'cat work/log; exit',
        submit: true,
        yield_ms: 3000,
      });
      expect(JSON.parse(text(written))).toMatchObject({ stdout: 'allowed\n' });
      expect(asked).toHaveLength(5);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('refuses every command for a client that cannot ask a person, saying why', async () => {
    const { client, call } = await connect(undefined);
    try {
      const refused = await call('workspace_exec', { command: 'echo hi' });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain('does not support elicitation');
      // Reading skills needs no approval.
      expect((await call('skill_load', { skill: 'logger' })).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  }, 60_000);
});
