import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RecordedRequest,
  type ScriptedOpenAiServer,
  startScriptedOpenAiServer,
} from '../../../test/support/scripted-openai-server.js';
import { renderCatalog } from '../../disclosure/catalog.js';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import { createRuntime } from '../../runtime/create-runtime.js';
import { openSqliteSessionStore } from '../../sessions/sqlite/index.js';
import { loadedKey } from '../../state/state-keys.js';
import { createWorkspaceManager } from '../../workspace/workspace-manager.js';

// The OpenAI Agents SDK's own runner (`run`, chat completions through the `openai` client) against a
// scripted model on loopback; everything else is real: skills on disk, bubblewrap, SQLite.
const peer = await import('@openai/agents').then(
  (sdk) => sdk,
  () => undefined,
);
const adapter = peer === undefined ? undefined : await import('./index.js');
const { OpenAIProvider } = peer === undefined ? ({} as never) : await import('@openai/agents-openai');

const examples = fileURLToPath(new URL('../../../examples/skills/', import.meta.url));
const instructions = 'You are a helpful assistant.';
let repository: FsSkillRepository;
let scratch: string;
const servers: ScriptedOpenAiServer[] = [];
const spans: Array<{ type: string; name?: string; data: Record<string, unknown> }> = [];

beforeAll(async () => {
  repository = await FsSkillRepository.open({ roots: [examples] });
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-openai-agents-'));
  // A local trace processor instead of the hosted exporter: the SDK's spans stay in this process.
  peer?.setTraceProcessors([
    {
      onTraceStart: async () => {},
      onTraceEnd: async () => {},
      onSpanStart: async () => {},
      onSpanEnd: async (span) => {
        const data = span.spanData as unknown as Record<string, unknown>;
        spans.push({ type: String(data.type), ...(typeof data.name === 'string' ? { name: data.name } : {}), data });
      },
      shutdown: async () => {},
      forceFlush: async () => {},
    },
  ]);
});
afterAll(async () => {
  for (const server of servers) await server.close();
  await rm(scratch, { recursive: true, force: true });
});

async function scripted(script: Parameters<typeof startScriptedOpenAiServer>[0]) {
  const server = await startScriptedOpenAiServer(script);
  servers.push(server);
  // Chat completions (useResponses: false) through the SDK's own OpenAI client, pointed at loopback.
  const provider = new OpenAIProvider({ baseURL: server.baseUrl, apiKey: 'test-key', useResponses: false });
  const model = await provider.getModel('scripted');
  return { server, model };
}

function toolNames(request: RecordedRequest | undefined): string[] {
  return (request?.body.tools ?? []).map((entry) => entry.function.name);
}

function systemText(request: RecordedRequest | undefined): string {
  const first = request?.body.messages[0];
  return first?.role === 'system' ? String(first.content) : '';
}

function toolMessage(request: RecordedRequest | undefined, callId: string): string | undefined {
  const message = request?.body.messages.find((entry) => entry.role === 'tool' && entry.tool_call_id === callId);
  return message === undefined ? undefined : String(message.content);
}

async function skillBody(name: string): Promise<string> {
  return (await repository.get(name)).body.trim();
}

const executionSkillTools = [
  'skill_load',
  'skill_list_docs',
  'skill_select_docs',
  'skill_read',
  'skill_run',
  'workspace_exec',
];

describe.skipIf(peer === undefined)('the OpenAI Agents SDK runner with skillbox (skillbox/openai-agents)', () => {
  it('python-math: loads with a doc, runs fib.py in the sandbox to an output file, and a second turn resumes from the SQLite store', async () => {
    const sdk = peer!;
    const runtime = createRuntime({ kind: 'sandbox' });
    const workspaces = createWorkspaceManager({ runtime, repository, baseDir: join(scratch, 'workspaces-math') });
    const runInput = {
      skill: 'python-math',
      command: 'python3 scripts/fib.py 10 > out/fib.txt',
      output_files: ['out/fib.txt'],
    };
    const { server, model } = await scripted([
      {
        toolCalls: [{ id: 'load-1', name: 'skill_load', arguments: { skill: 'python-math', docs: ['docs/usage.md'] } }],
      },
      { toolCalls: [{ id: 'run-1', name: 'skill_run', arguments: runInput }] },
      { text: 'The first ten Fibonacci numbers end with 34.' },
      { text: 'You are welcome.' },
    ]);
    const path = join(scratch, 'math.db');
    const store = await openSqliteSessionStore({ path });
    const skills = adapter!.createAgentSkills({ repository, workspaces, sessions: store });
    const agent = new sdk.Agent({ ...skills.forAgent('assistant', { instructions }), model });
    const session = await skills.openSession({ userId: 'demo', sessionId: 'math' });
    const result = await sdk.run(agent, 'First 10 Fibonacci numbers?', skills.runOptions(session));
    expect(result.finalOutput).toBe('The first ten Fibonacci numbers end with 34.');

    const usage = (await repository.readFile('python-math', 'docs/usage.md')).toString('utf8');
    const catalog = renderCatalog({ skills: await repository.list(), tools: executionSkillTools });
    const loaded = `[Loaded] python-math\n\n${await skillBody('python-math')}\n\nDocs loaded: docs/usage.md\n\n[Doc] docs/usage.md\n\n${usage.trim()}`;
    expect(server.requests).toHaveLength(3);
    for (const request of server.requests) {
      expect(systemText(request)).toBe(`${instructions}\n\n${catalog}`);
      expect(toolNames(request)).toEqual(executionSkillTools);
    }
    expect(toolMessage(server.requests[1], 'load-1')).toBe(loaded);
    const runOutput = JSON.parse(toolMessage(server.requests[2], 'run-1') ?? '{}');
    expect(runOutput).toMatchObject({
      exit_code: 0,
      output_files: [{ name: 'out/fib.txt', content: '0\n1\n1\n2\n3\n5\n8\n13\n21\n34\n' }],
      warnings: [],
    });
    // The earlier request is a prefix of the next one, byte for byte, up to the new items.
    expect(server.requests[2]!.body.messages.slice(0, 4)).toEqual(server.requests[1]!.body.messages);
    const workspace = await workspaces.workspace({ userId: 'demo', sessionId: 'math' });
    expect(await readFile(join(workspace.root, 'out', 'fib.txt'), 'utf8')).toBe('0\n1\n1\n2\n3\n5\n8\n13\n21\n34\n');
    await store.close();

    // A second process: a new store on the same file, a new adapter, the same session key.
    const reopened = await openSqliteSessionStore({ path });
    const later = adapter!.createAgentSkills({ repository, workspaces, sessions: reopened });
    const laterAgent = new sdk.Agent({ ...later.forAgent('assistant', { instructions }), model });
    const resumed = await later.openSession({ userId: 'demo', sessionId: 'math' });
    const second = await sdk.run(laterAgent, 'Thanks!', later.runOptions(resumed));
    expect(second.finalOutput).toBe('You are welcome.');
    const fourth = server.requests[3]!;
    const roles = fourth.body.messages.map((message) => message.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'user']);
    // Turn mode: the skill was unloaded at the new turn, so the stored stub is what the model sees.
    expect(toolMessage(fourth, 'load-1')).toBe('loaded: python-math');
    const stored = await reopened.getSession({ userId: 'demo', sessionId: 'math' });
    expect(Object.keys(stored?.state ?? {}).filter((key) => key.startsWith('temp:skill:'))).toEqual([]);
    expect(stored?.events.filter((event) => event.type === 'agents-item')).toHaveLength(8);
    await reopened.close();
  });
});
