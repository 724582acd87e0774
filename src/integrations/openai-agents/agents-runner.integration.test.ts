import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  askNameUnavailable,
  exampleSkillsRoot,
  executionSkillToolNames,
  fibonacciTen,
  forScriptedServer,
  assistantInstructions as instructions,
  pythonMathConversation,
  pythonMathLoadResult,
  skillToolNames,
  systemPromptText as systemText,
  toolResultText as toolMessage,
  offeredToolNames as toolNames,
  weatherAnswer,
  weatherConversation,
  weatherLoadResult,
  weatherPoolAnswers,
  weatherQuestion,
  weatherSelectedTools,
} from '../../../test/support/example-skill-conversations.js';
import { importOptionalPeer } from '../../../test/support/optional-peer.js';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../../test/support/scripted-openai-server.js';
import { renderCatalog } from '../../disclosure/catalog.js';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { createRuntime } from '../../runtime/create-runtime.js';
import { openSqliteSessionStore } from '../../sessions/sqlite/index.js';
import { loadedKey } from '../../state/state-keys.js';
import { createWorkspaceManager } from '../../workspace/workspace-manager.js';

// The OpenAI Agents SDK's own runner (`run`, chat completions through the `openai` client) against a
// scripted model on loopback; everything else is real: skills on disk, bubblewrap, SQLite.
const peer = await importOptionalPeer('OpenAI Agents SDK', () => import('@openai/agents'));
const adapter = peer === undefined ? undefined : await import('./index.js');
const { OpenAIProvider } = peer === undefined ? ({} as never) : await import('@openai/agents-openai');

let repository: FsSkillRepository;
let scratch: string;
const servers: ScriptedOpenAiServer[] = [];
const spans: Array<{ type: string; name?: string; data: Record<string, unknown> }> = [];

beforeAll(async () => {
  repository = await FsSkillRepository.open({ roots: [exampleSkillsRoot] });
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-openai-agents-'));
  // A local trace processor instead of the hosted exporter: the SDK's spans stay in this process.
  // vitest sets NODE_ENV=test, under which the SDK turns tracing off by default.
  peer?.setTracingDisabled(false);
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

async function skillBody(name: string): Promise<string> {
  return (await repository.get(name)).body.trim();
}

describe.skipIf(peer === undefined)('the OpenAI Agents SDK runner with skillbox (skillbox/openai-agents)', () => {
  it('python-math: loads with a doc, runs fib.py in the sandbox to an output file, and a second turn resumes from the SQLite store', async () => {
    const sdk = peer!;
    const runtime = createRuntime({ kind: 'sandbox' });
    const workspaces = createWorkspaceManager({ runtime, repository, baseDir: join(scratch, 'workspaces-math') });
    const { server, model } = await scripted(forScriptedServer(pythonMathConversation));
    const path = join(scratch, 'math.db');
    const store = await openSqliteSessionStore({ path });
    const skills = adapter!.createAgentSkills({ repository, workspaces, sessions: store });
    const agent = new sdk.Agent({ ...skills.forAgent('assistant', { instructions }), model });
    const session = await skills.openSession({ userId: 'demo', sessionId: 'math' });
    const result = await sdk.run(agent, 'First 10 Fibonacci numbers?', skills.runOptions(session));
    expect(result.finalOutput).toBe('The first ten Fibonacci numbers end with 34.');

    const catalog = renderCatalog({ skills: await repository.list(), tools: executionSkillToolNames });
    expect(server.requests).toHaveLength(3);
    for (const request of server.requests) {
      expect(systemText(request)).toBe(`${instructions}\n\n${catalog}`);
      expect(toolNames(request)).toEqual(executionSkillToolNames);
    }
    expect(toolMessage(server.requests[1], 'load-1')).toBe(await pythonMathLoadResult(repository));
    const runOutput = JSON.parse(toolMessage(server.requests[2], 'run-1') ?? '{}');
    expect(runOutput).toMatchObject({
      exit_code: 0,
      output_files: [{ name: 'out/fib.txt', content: fibonacciTen }],
    });
    // Ran confined (a non-root host may add that a cgroup limit could not be applied, never this).
    expect(JSON.stringify(runOutput.warnings)).not.toContain('NOT ISOLATED');
    // The earlier request is a prefix of the next one, byte for byte, up to the new items.
    expect(server.requests[2]!.body.messages.slice(0, 4)).toEqual(server.requests[1]!.body.messages);
    const workspace = await workspaces.workspace({ userId: 'demo', sessionId: 'math' });
    expect(await readFile(join(workspace.root, 'out', 'fib.txt'), 'utf8')).toBe(fibonacciTen);
    // The SDK's own tracing saw each skill tool call as a function span, in a local processor.
    const functionSpans = spans.filter((span) => span.type === 'function').map((span) => span.name);
    expect(functionSpans).toEqual(expect.arrayContaining(['skill_load', 'skill_run']));
    expect(spans.find((span) => span.name === 'skill_run')?.data.output).toContain('out/fib.txt');
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

  function poolTool(name: string, answer: (input: Record<string, unknown>) => unknown) {
    return peer!.tool({
      name,
      description: `${name} (weather pool tool)`,
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, name: { type: 'string' } },
        required: [],
        additionalProperties: true,
      },
      strict: false,
      execute: async (input) => JSON.stringify(answer(input as Record<string, unknown>)),
    });
  }

  it('weather-tools: pool tools are enabled only after skill_load; a call of one no loaded skill names is explained to the model', async () => {
    const sdk = peer!;
    const toolPool = Object.entries(weatherPoolAnswers).map(([name, answer]) => poolTool(name, answer));
    const { server, model } = await scripted(forScriptedServer(weatherConversation));
    const store = await openSqliteSessionStore({ path: join(scratch, 'weather.db') });
    const skills = adapter!.createAgentSkills({ repository, toolPool, sessions: store });
    const agent = new sdk.Agent({ ...skills.forAgent('assistant', { instructions }), model });
    const session = await skills.openSession({ userId: 'demo', sessionId: 'weather' });
    const result = await sdk.run(agent, weatherQuestion, skills.runOptions(session));
    expect(result.finalOutput).toBe(weatherAnswer);

    expect(server.requests).toHaveLength(3);
    expect(toolNames(server.requests[0])).toEqual(skillToolNames);
    expect(toolNames(server.requests[1])).toEqual([...skillToolNames, ...weatherSelectedTools]);
    expect(toolMessage(server.requests[1], 'load-1')).toBe(await weatherLoadResult(repository));
    expect(JSON.parse(toolMessage(server.requests[2], 'weather-1') ?? '')).toEqual({
      city: 'Beijing',
      temperature: 22,
      condition: 'Partly Cloudy',
    });
    expect(toolMessage(server.requests[2], 'ask-1')).toBe(askNameUnavailable);
    await store.close();
  });

  it('streams through the SDK (stream: true): events for the skill tool calls, the loaded skill in the next streamed request', async () => {
    const sdk = peer!;
    const { server, model } = await scripted([
      { toolCalls: [{ id: 'load-1', name: 'skill_load', arguments: { skill: 'python-math' } }] },
      { text: 'Fibonacci numbers are sums of the two before.' },
    ]);
    const store = await openSqliteSessionStore({ path: join(scratch, 'stream.db') });
    const skills = adapter!.createAgentSkills({ repository, sessions: store });
    const agent = new sdk.Agent({ ...skills.forAgent('assistant', { instructions }), model });
    const session = await skills.openSession({ userId: 'demo', sessionId: 'stream' });
    const streamed = await sdk.run(agent, 'Explain Fibonacci', { ...skills.runOptions(session), stream: true });
    const seen: string[] = [];
    let text = '';
    for await (const event of streamed) {
      if (event.type === 'run_item_stream_event')
        seen.push(`${event.name}:${(event.item.rawItem as { name?: string }).name ?? ''}`);
      if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta') text += event.data.delta;
    }
    await streamed.completed;
    expect(streamed.finalOutput).toBe('Fibonacci numbers are sums of the two before.');
    expect(text).toBe('Fibonacci numbers are sums of the two before.');
    expect(seen).toEqual(expect.arrayContaining(['tool_called:skill_load', 'tool_output:skill_load']));
    expect(server.requests.every((request) => request.body.stream === true)).toBe(true);
    expect(toolMessage(server.requests[1], 'load-1')).toContain(await skillBody('python-math'));
    // The stored item keeps the stub: only the request carried the body.
    const stored = await store.getSession({ userId: 'demo', sessionId: 'stream' });
    expect(JSON.stringify(stored?.events)).not.toContain('Short standard-library Python scripts');
    expect(stored?.state[loadedKey('assistant', 'python-math')]).toBe('1');
    await store.close();
  });

  it("a handoff between two agents keeps each agent's loaded skills and tool pool apart", async () => {
    const sdk = peer!;
    const twoSkills = createMemorySkillRepository([
      { name: 'alpha', description: 'Alpha work.', body: 'ALPHA-BODY: route carefully.' },
      { name: 'beta', description: 'Beta work.', body: 'BETA-BODY: count syllables.', tools: ['count_syllables'] },
    ]);
    const countSyllables = poolTool('count_syllables', ({ name }) => ({ name, syllables: 3 }));
    const { server, model } = await scripted([
      { toolCalls: [{ id: 'load-alpha', name: 'skill_load', arguments: { skill: 'alpha' } }] },
      { toolCalls: [{ id: 'handoff-1', name: 'transfer_to_specialist', arguments: {} }] },
      { toolCalls: [{ id: 'load-beta', name: 'skill_load', arguments: { skill: 'beta' } }] },
      { text: 'Three syllables.' },
    ]);
    const store = await openSqliteSessionStore({ path: join(scratch, 'handoff.db') });
    const skills = adapter!.createAgentSkills({
      repository: twoSkills,
      toolPool: [countSyllables],
      sessions: store,
      loadMode: 'session',
    });
    const specialist = new sdk.Agent({ ...skills.forAgent('specialist', { instructions: 'You count.' }), model });
    const triage = new sdk.Agent({
      ...skills.forAgent('triage', { instructions: 'You route.' }),
      model,
      handoffs: [specialist],
    });
    const session = await skills.openSession({ userId: 'demo', sessionId: 'handoff' });
    const result = await sdk.run(triage, 'How many syllables in banana?', skills.runOptions(session));
    expect(result.finalOutput).toBe('Three syllables.');
    expect(result.lastAgent?.name).toBe('specialist');

    const [first, second, third, fourth] = server.requests;
    expect(systemText(second)).toMatch(/^You route\./);
    expect(toolMessage(second, 'load-alpha')).toContain('ALPHA-BODY');
    expect(toolNames(second)).not.toContain('count_syllables');
    // The specialist sees the history, but alpha is triage's: a stub for it, not its content.
    expect(systemText(third)).toMatch(/^You count\./);
    expect(toolMessage(third, 'load-alpha')).toBe('loaded: alpha');
    expect(toolNames(third)).not.toContain('count_syllables');
    expect(toolMessage(fourth, 'load-beta')).toContain('BETA-BODY');
    expect(toolMessage(fourth, 'load-alpha')).toBe('loaded: alpha');
    expect(toolNames(fourth)).toContain('count_syllables');
    expect(toolNames(first)).not.toContain('count_syllables');

    const stored = await store.getSession({ userId: 'demo', sessionId: 'handoff' });
    expect(stored?.state[loadedKey('triage', 'alpha')]).toBe('1');
    expect(stored?.state[loadedKey('specialist', 'beta')]).toBe('1');
    expect(stored?.state[loadedKey('specialist', 'alpha')]).toBeUndefined();
    expect(stored?.state[loadedKey('triage', 'beta')]).toBeUndefined();
    await store.close();
  });

  it("approval: skill_run of a skill that needs approval interrupts the SDK's run; the approved call runs in the sandbox and both events are stored", async () => {
    const sdk = peer!;
    const runtime = createRuntime({ kind: 'sandbox' });
    const workspaces = createWorkspaceManager({ runtime, repository, baseDir: join(scratch, 'workspaces-approval') });
    const runInput = {
      skill: 'python-math',
      command: 'python3 scripts/fib.py 5 > out/fib.txt',
      output_files: ['out/fib.txt'],
    };
    const { server, model } = await scripted([
      { toolCalls: [{ id: 'load-1', name: 'skill_load', arguments: { skill: 'python-math' } }] },
      { toolCalls: [{ id: 'run-1', name: 'skill_run', arguments: runInput }] },
      { text: 'Done: 0 1 1 2 3.' },
    ]);
    const store = await openSqliteSessionStore({ path: join(scratch, 'approval.db') });
    const skills = adapter!.createAgentSkills({
      repository,
      workspaces,
      sessions: store,
      approval: { skills: ['python-math'] },
    });
    const agent = new sdk.Agent({ ...skills.forAgent('assistant', { instructions }), model });
    const session = await skills.openSession({ userId: 'demo', sessionId: 'approval' });
    const options = skills.runOptions(session);
    const interrupted = await sdk.run(agent, 'Five Fibonacci numbers', options);
    expect(interrupted.interruptions.map((item) => item.name)).toEqual(['skill_run']);
    expect(server.requests).toHaveLength(2);
    const workspace = await workspaces.workspace({ userId: 'demo', sessionId: 'approval' });
    await expect(readFile(join(workspace.root, 'out', 'fib.txt'), 'utf8')).rejects.toThrow();

    interrupted.state.approve(interrupted.interruptions[0]!);
    const resumed = await sdk.run(agent, interrupted.state, options);
    expect(resumed.finalOutput).toBe('Done: 0 1 1 2 3.');
    expect(await readFile(join(workspace.root, 'out', 'fib.txt'), 'utf8')).toBe('0\n1\n1\n2\n3\n');
    await session.flush();
    const stored = await store.getSession({ userId: 'demo', sessionId: 'approval' });
    const approvals = stored?.events.filter((event) => event.type.startsWith('approval-'));
    expect(approvals?.map((event) => event.type)).toEqual(['approval-request', 'approval-decision']);
    expect(approvals?.[1]?.content).toMatchObject({ decision: 'allow-once', source: 'openai-agents-approval' });
    await store.close();
  });

  it('names what is missing: a run not started with runOptions, and bad options', async () => {
    const sdk = peer!;
    const { model } = await scripted([
      { toolCalls: [{ id: 'load-1', name: 'skill_load', arguments: { skill: 'python-math' } }] },
    ]);
    const skills = adapter!.createAgentSkills({
      repository,
      sessions: await openSqliteSessionStore({ path: ':memory:' }),
    });
    const agent = new sdk.Agent({ ...skills.forAgent('assistant'), model });
    await expect(sdk.run(agent, 'hi')).rejects.toThrow(/runOptions\(session\)/);
    expect(() => adapter!.createAgentSkills({ repository: {} as never })).toThrow(
      /"repository" must be a SkillRepository/,
    );
    const pooled = poolTool('twice', () => ({}));
    expect(() => adapter!.createAgentSkills({ repository, toolPool: [pooled, pooled] })).toThrow(
      /toolPool.1.*second tool named "twice"/,
    );
    expect(() => adapter!.createAgentSkills({ repository, toolPool: [poolTool('skill_load', () => ({}))] })).toThrow(
      /skill_load/,
    );
  });

  it("without a store, sessions go to the SQLite file ~/.skillbox/sessions.db, the CLI's", async () => {
    const sdk = peer!;
    const home = join(scratch, 'home');
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const { model } = await scripted([{ text: 'hello' }]);
      const skills = adapter!.createAgentSkills({ repository });
      const agent = new sdk.Agent({ ...skills.forAgent('assistant'), model });
      const session = await skills.openSession({ userId: 'demo', sessionId: 'default-store' });
      await sdk.run(agent, 'hi', skills.runOptions(session));
      await skills.close();
      const store = await openSqliteSessionStore({ path: join(home, '.skillbox', 'sessions.db') });
      const stored = await store.getSession({ userId: 'demo', sessionId: 'default-store' });
      expect(stored?.events.map((event) => event.author)).toEqual(['user', 'assistant']);
      await store.close();
    } finally {
      if (saved === undefined) delete process.env.HOME;
      else process.env.HOME = saved;
    }
  });
});
