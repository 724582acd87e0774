import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalEvent, ApprovalOptions } from '../../approvals/approval-types.js';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import { LocalRuntime } from '../../runtime/local-runtime.js';
import { createExecutionTools } from '../../workspace/tools/execution-tools.js';
import { createWorkspaceManager } from '../../workspace/workspace-manager.js';
import { createSkillMcpServer } from './skill-mcp-server.js';

let scratch: string;
let repository: FsSkillRepository;
let counter = 0;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-mcp-approval-'));
  const skill = join(scratch, 'skills', 'writer');
  await mkdir(join(skill, 'scripts'), { recursive: true });
  await writeFile(join(skill, 'SKILL.md'), '---\nname: writer\ndescription: Writes a file.\n---\nRun touch.sh.\n');
  await writeFile(join(skill, 'scripts', 'touch.sh'), 'echo ran > "$1"\n');
  repository = await FsSkillRepository.open({ roots: [join(scratch, 'skills')] });
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A server with skill_run behind approval, and a real MCP client that answers elicitation with `answer` (or cannot elicit). */
async function connect(answer: ((message: string) => ElicitResult) | undefined, approval: ApprovalOptions) {
  counter += 1;
  const workspaces = createWorkspaceManager({
    runtime: new LocalRuntime(),
    repository,
    baseDir: join(scratch, `ws-${counter}`),
  });
  const served = await createSkillMcpServer({
    repository,
    profile: 'full',
    executionTools: createExecutionTools({ workspaces }),
    approval,
    log: () => {},
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client(
    { name: 'approving-client', version: '1.0.0' },
    answer === undefined ? {} : { capabilities: { elicitation: { form: {} } } },
  );
  const asked: string[] = [];
  if (answer !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const message = (request.params as { message: string }).message;
      asked.push(message);
      return answer(message);
    });
  }
  await served.server.connect(serverTransport);
  await client.connect(clientTransport);
  closers.push(async () => {
    await client.close();
    await served.server.close();
  });
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  await call('skill_load', { skill: 'writer' });
  const marker = (name: string) => join(scratch, `${name}-${counter}`);
  const run = (file: string) => call('skill_run', { skill: 'writer', command: `bash scripts/touch.sh ${file}` });
  return { call, run, asked, marker };
}

function text(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

describe('skillbox MCP server with approval', () => {
  it('asks through elicitation with the command, skill and files; a denial runs nothing', async () => {
    const { run, asked, marker } = await connect(() => ({ action: 'accept', content: { decision: 'deny' } }), {
      skills: ['writer'],
    });
    const file = marker('denied');
    const result = await run(file);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('Not run: the person denied skill_run of skill "writer"');
    expect(existsSync(file)).toBe(false);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`command: bash scripts/touch.sh ${file}`);
    expect(asked[0]).toContain('skill_run of skill "writer"');
    expect(asked[0]).toContain('files staged: skills/writer/SKILL.md, skills/writer/scripts/touch.sh');
  });

  it('a declined or cancelled form is a denial', async () => {
    for (const action of ['decline', 'cancel'] as const) {
      const { run, marker } = await connect(() => ({ action }), { skills: 'all' });
      const file = marker(action);
      expect(text(await run(file))).toContain('Not run: the person denied');
      expect(existsSync(file)).toBe(false);
    }
  });

  it('allow-always is asked once for the connection, and recorded through onEvent', async () => {
    const events: ApprovalEvent[] = [];
    const { run, asked, marker } = await connect(() => ({ action: 'accept', content: { decision: 'allow-always' } }), {
      tools: ['skill_run'],
      onEvent: (event) => events.push(event),
    });
    expect((await run(marker('one'))).isError).toBeFalsy();
    expect((await run(marker('two'))).isError).toBeFalsy();
    expect(existsSync(marker('one')) && existsSync(marker('two'))).toBe(true);
    expect(asked).toHaveLength(1);
    expect(events.map((event) => `${event.type}:${'decision' in event.content ? event.content.source : ''}`)).toEqual([
      'approval-request:',
      'approval-decision:person',
      'approval-decision:remembered',
    ]);
  });

  it('a client that cannot elicit gets the call refused with what to configure', async () => {
    const { run, marker } = await connect(undefined, { skills: ['writer'] });
    const file = marker('no-elicitation');
    const result = await run(file);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("needs a person's approval and none was given");
    expect(text(result)).toContain('does not support elicitation');
    expect(text(result)).toContain('approval.decide');
    expect(existsSync(file)).toBe(false);
  });

  it('tools outside the policy run without asking', async () => {
    const { call, asked } = await connect(() => ({ action: 'accept', content: { decision: 'deny' } }), {
      skills: ['some-other-skill'],
    });
    const result = await call('workspace_exec', { command: 'echo fine' });
    expect(text(result)).toContain('fine');
    expect(asked).toEqual([]);
  });
});
