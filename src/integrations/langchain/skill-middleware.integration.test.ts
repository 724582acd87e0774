import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exampleSkillsRoot as examples,
  executionSkillToolNames,
  fibonacciTen,
  forScriptedServer,
  pythonMathConversation,
  skillToolNames,
  systemPromptText,
  offeredToolNames as toolNamesOf,
  toolResultText,
  weatherConversation,
  weatherPoolAnswers,
  weatherSelectedTools,
} from '../../../test/support/example-skill-conversations.js';
import { importOptionalPeer } from '../../../test/support/optional-peer.js';
import { type ScriptedResponse, startScriptedOpenAiServer } from '../../../test/support/scripted-openai-server.js';
import { renderCatalog } from '../../disclosure/catalog.js';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import { createRuntime } from '../../runtime/create-runtime.js';
import { loadedKey, loadedOrderKey } from '../../state/state-keys.js';
import { createWorkspaceManager } from '../../workspace/workspace-manager.js';

// The real createAgent, ChatOpenAI against the scripted chat-completions server on loopback, the
// real skills, sandbox and MemorySaver: each test reads what the model was sent.
const present =
  (await importOptionalPeer('LangChain middleware', () =>
    Promise.all([import('langchain'), import('@langchain/openai'), import('@langchain/langgraph')]),
  )) !== undefined;
const { createSkillMiddleware } = present ? await import('./index.js') : ({} as typeof import('./index.js'));

const execFileAsync = promisify(execFile);
const systemPrompt = 'You are a helpful assistant.';
let repository: FsSkillRepository;
let scratch: string;

beforeAll(async () => {
  repository = await FsSkillRepository.open({ roots: [examples] });
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-langchain-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function modelFor(script: ScriptedResponse[]) {
  const server = await startScriptedOpenAiServer(script);
  const { ChatOpenAI } = await import('@langchain/openai');
  const model = new ChatOpenAI({ model: 'scripted', apiKey: 'test', configuration: { baseURL: server.baseUrl } });
  return { server, model };
}

async function weatherPool() {
  const { tool } = await import('langchain');
  const { z } = await import('zod');
  return Object.entries(weatherPoolAnswers).map(([name, answer]) =>
    tool(async (input: Record<string, unknown>) => JSON.stringify(answer(input)), {
      name,
      description: `${name} (weather pool tool)`,
      schema: z.object({ city: z.string().optional(), name: z.string().optional(), days: z.number().optional() }),
    }),
  );
}

describe.skipIf(!present)('createSkillMiddleware with the real createAgent and ChatOpenAI', () => {
  it('sends the catalog, materialises skill_load into its result, and offers pool tools only once a skill selects them', async () => {
    const { createAgent } = await import('langchain');
    const { server, model } = await modelFor(forScriptedServer(weatherConversation));
    try {
      const middleware = createSkillMiddleware({ repository, toolPool: await weatherPool() });
      const agent = createAgent({ model, tools: [], middleware: [middleware], systemPrompt });
      const result = await agent.invoke({ messages: [{ role: 'user', content: 'Weather in Beijing?' }] });

      const catalog = renderCatalog({ skills: await repository.list(), tools: skillToolNames });
      expect(server.requests).toHaveLength(3);
      for (const request of server.requests) expect(systemPromptText(request)).toBe(`${systemPrompt}${catalog}`);
      expect(toolNamesOf(server.requests[0]!).sort()).toEqual([...skillToolNames].sort());
      expect(toolNamesOf(server.requests[1]!).sort()).toEqual([...skillToolNames, ...weatherSelectedTools].sort());
      // The request carries the skill's body in the load result; the graph keeps the short stub.
      const body = (await repository.get('weather-tools')).body.trim();
      const loadResult = toolResultText(server.requests[1], 'load-1');
      expect(loadResult).toContain(`[Loaded] weather-tools\n\n${body}`);
      const stored = result.messages.find(
        (message) => (message as { tool_call_id?: string }).tool_call_id === 'load-1',
      );
      expect(stored?.content).toBe('loaded: weather-tools');
      // A tool the model was not offered is not run: it learns that no skill provides it.
      const refused = toolResultText(server.requests[2], 'ask-1');
      expect(refused).toContain('tool "ask_name_information" is not available: no skill lists it');
      const answered = toolResultText(server.requests[2], 'weather-1');
      expect(answered).toBe(JSON.stringify(weatherPoolAnswers.get_current_weather!({ city: 'Beijing' })));
      // Earlier messages are byte-identical in the next request: the prefix a provider caches.
      const earlier = server.requests[1]!.body.messages;
      expect(JSON.stringify(server.requests[2]!.body.messages.slice(0, earlier.length))).toBe(JSON.stringify(earlier));
    } finally {
      await server.close();
    }
  });

  it('two skill_load calls in one step both land in the graph state', async () => {
    const { createAgent } = await import('langchain');
    const { MemorySaver } = await import('@langchain/langgraph');
    const { server, model } = await modelFor([
      {
        toolCalls: [
          { id: 'load-a', name: 'skill_load', arguments: { skill: 'python-math' } },
          { id: 'load-b', name: 'skill_load', arguments: { skill: 'file-ops' } },
        ],
      },
      { text: 'Both loaded.' },
    ]);
    try {
      const checkpointer = new MemorySaver();
      const agent = createAgent({
        model,
        tools: [],
        middleware: [createSkillMiddleware({ repository, loadMode: 'session' })],
        checkpointer,
      });
      const config = { configurable: { thread_id: 'parallel' } };
      await agent.invoke({ messages: [{ role: 'user', content: 'Load both.' }] }, config);
      // Read from the checkpoint itself: what a database checkpointer would store.
      const checkpoint = await checkpointer.getTuple(config);
      const values = (checkpoint?.checkpoint.channel_values.skillbox as { values: Record<string, string> }).values;
      expect(values[loadedKey('assistant', 'python-math')]).toBe('1');
      expect(values[loadedKey('assistant', 'file-ops')]).toBe('1');
      expect(JSON.parse(values[loadedOrderKey('assistant')]!).sort()).toEqual(['file-ops', 'python-math']);
      // Both skills are in the next request, each in its own load result.
      expect(toolResultText(server.requests[1], 'load-a')).toContain('[Loaded] python-math');
      expect(toolResultText(server.requests[1], 'load-b')).toContain('[Loaded] file-ops');
    } finally {
      await server.close();
    }
  });

  it('runs a skill script in the sandbox, and a fresh agent on the same checkpointer resumes the thread with the skill loaded', async () => {
    const { createAgent } = await import('langchain');
    const { MemorySaver } = await import('@langchain/langgraph');
    const runtime = createRuntime({ kind: 'sandbox' });
    const workspaces = createWorkspaceManager({ runtime, repository, baseDir: join(scratch, 'workspaces') });
    const { server, model } = await modelFor(forScriptedServer(pythonMathConversation));
    try {
      const checkpointer = new MemorySaver();
      const options = {
        repository,
        workspaces,
        loadMode: 'session' as const,
        session: () => ({ sessionId: 'math', userId: 'demo' }),
      };
      const config = { configurable: { thread_id: 'math' } };
      const first = createAgent({
        model,
        tools: [],
        middleware: [createSkillMiddleware(options)],
        checkpointer,
        systemPrompt,
      });
      await first.invoke({ messages: [{ role: 'user', content: 'First 10 Fibonacci numbers?' }] }, config);

      expect(toolNamesOf(server.requests[0]!).sort()).toEqual([...executionSkillToolNames].sort());
      const usage = (await repository.readFile('python-math', 'docs/usage.md')).toString('utf8').trim();
      const loadResult = toolResultText(server.requests[1], 'load-1');
      expect(loadResult).toContain(`Docs loaded: docs/usage.md\n\n[Doc] docs/usage.md\n\n${usage}`);
      const runResult = JSON.parse(toolResultText(server.requests[2], 'run-1') ?? '{}');
      expect(runResult).toMatchObject({ exit_code: 0 });
      expect(runResult.output_files[0]).toMatchObject({ name: 'out/fib.txt', content: fibonacciTen });
      const workspace = await workspaces.workspace({ userId: 'demo', sessionId: 'math' });
      expect(await readFile(join(workspace.root, 'out', 'fib.txt'), 'utf8')).toBe(fibonacciTen);

      // Another agent instance (another process would build the same): only the checkpointer is shared.
      const second = createAgent({
        model,
        tools: [],
        middleware: [createSkillMiddleware(options)],
        checkpointer,
        systemPrompt,
      });
      await second.invoke({ messages: [{ role: 'user', content: 'Thanks!' }] }, config);
      const resumed = server.requests[3]!.body.messages;
      expect(resumed.map((message) => message.role)).toEqual([
        'system',
        'user',
        'assistant',
        'tool',
        'assistant',
        'tool',
        'assistant',
        'user',
      ]);
      // Session mode: the skill loaded in the first turn is still loaded, materialised from the checkpointed state.
      expect(toolResultText(server.requests[3], 'load-1')).toContain('[Loaded] python-math');
    } finally {
      await server.close();
      await workspaces.close?.();
    }
  });

  it("another process resumes the thread from the checkpointer's serialised bytes with the skill still loaded", async () => {
    const { createAgent } = await import('langchain');
    const { MemorySaver } = await import('@langchain/langgraph');
    const { server, model } = await modelFor([
      { toolCalls: [{ id: 'load-1', name: 'skill_load', arguments: { skill: 'python-math' } }] },
      { text: 'Loaded.' },
      { text: 'Still here.' },
    ]);
    try {
      const checkpointer = new MemorySaver();
      const agent = createAgent({
        model,
        tools: [],
        middleware: [createSkillMiddleware({ repository, loadMode: 'session' })],
        checkpointer,
      });
      await agent.invoke(
        { messages: [{ role: 'user', content: 'Load math.' }] },
        { configurable: { thread_id: 'processes' } },
      );
      // The saver keeps checkpoints as the bytes its serializer wrote: handed to another process as they are.
      const dumpFile = join(scratch, 'checkpoints.json');
      const bytes = (_key: string, value: unknown) =>
        value instanceof Uint8Array ? { base64: Buffer.from(value).toString('base64') } : value;
      await writeFile(dumpFile, JSON.stringify({ storage: checkpointer.storage, writes: checkpointer.writes }, bytes));
      const script = fileURLToPath(new URL('../../../test/support/langchain-second-turn-process.ts', import.meta.url));
      await execFileAsync(process.execPath, ['--import', 'tsx', script, dumpFile, server.baseUrl, examples], {
        cwd: fileURLToPath(new URL('../../../', import.meta.url)),
      });
      expect(server.requests).toHaveLength(3);
      const resumed = server.requests[2]!.body.messages;
      expect(resumed.map((message) => message.role)).toEqual([
        'system',
        'user',
        'assistant',
        'tool',
        'assistant',
        'user',
      ]);
      expect(toolResultText(server.requests[2], 'load-1')).toContain('[Loaded] python-math');
    } finally {
      await server.close();
    }
  }, 60_000);

  it('turn mode: the next invocation starts with nothing loaded; system mode puts a loaded skill in the system message', async () => {
    const { createAgent } = await import('langchain');
    const { MemorySaver } = await import('@langchain/langgraph');
    const { server, model } = await modelFor([
      { toolCalls: [{ id: 'load-1', name: 'skill_load', arguments: { skill: 'python-math' } }] },
      { text: 'Loaded.' },
      { text: 'Hello again.' },
    ]);
    try {
      const checkpointer = new MemorySaver();
      const agent = createAgent({
        model,
        tools: [],
        middleware: [createSkillMiddleware({ repository, materialize: 'system' })],
        checkpointer,
        systemPrompt,
      });
      const config = { configurable: { thread_id: 'turns' } };
      await agent.invoke({ messages: [{ role: 'user', content: 'Load math.' }] }, config);
      await agent.invoke({ messages: [{ role: 'user', content: 'Hi.' }] }, config);
      const body = (await repository.get('python-math')).body.trim();
      expect(systemPromptText(server.requests[0])).not.toContain(body);
      expect(systemPromptText(server.requests[1])).toContain(`[Loaded] python-math\n\n${body}`);
      expect(toolResultText(server.requests[1], 'load-1')).toBe('loaded: python-math');
      expect(systemPromptText(server.requests[2])).not.toContain(body);
    } finally {
      await server.close();
    }
  });

  it('a call the tool refuses (an unknown skill, missing input) reaches the model as an error result and loads nothing', async () => {
    const { createAgent } = await import('langchain');
    const { MemorySaver } = await import('@langchain/langgraph');
    const { server, model } = await modelFor([
      {
        toolCalls: [
          { id: 'bad-1', name: 'skill_load', arguments: { skill: 'no-such-skill' } },
          { id: 'bad-2', name: 'skill_load', arguments: {} },
        ],
      },
      { text: 'Sorry.' },
    ]);
    try {
      const checkpointer = new MemorySaver();
      const agent = createAgent({
        model,
        tools: [],
        middleware: [createSkillMiddleware({ repository })],
        checkpointer,
      });
      const config = { configurable: { thread_id: 'refused' } };
      await agent.invoke({ messages: [{ role: 'user', content: 'Load it.' }] }, config);
      expect(toolResultText(server.requests[1], 'bad-1')).toContain('no-such-skill');
      expect(toolResultText(server.requests[1], 'bad-2')).toMatch(/skill/);
      const checkpoint = await checkpointer.getTuple(config);
      const values = (checkpoint?.checkpoint.channel_values.skillbox as { values: Record<string, string> }).values;
      expect(Object.keys(values).filter((key) => key.includes('loaded_by_agent'))).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("enforceAllowedTools: a loaded skill's allowed-tools narrow the offer, and a call to a withheld tool (skill_run included) is not run", async () => {
    const { createAgent, tool } = await import('langchain');
    const { z } = await import('zod');
    const { createMemorySkillRepository } = await import('../../repository/memory-skill-repository.js');
    const notesRepository = createMemorySkillRepository([
      {
        name: 'notes',
        description: 'Take notes.',
        body: 'Write notes tersely.',
        allowedTools: ['save_note'],
        tools: ['save_note'],
      },
    ]);
    let ran = 0;
    const poolTool = (name: string) =>
      tool(
        async () => {
          ran += 1;
          return 'ran';
        },
        { name, description: name, schema: z.object({}) },
      );
    const executionTools = [
      {
        name: 'skill_run',
        description: 'Run a script.',
        inputSchema: z.object({}),
        writesState: false,
        execute: async () => {
          ran += 1;
          return 'ran';
        },
      },
    ];
    const { server, model } = await modelFor([
      { toolCalls: [{ id: 'load-1', name: 'skill_load', arguments: { skill: 'notes' } }] },
      {
        toolCalls: [
          { id: 'run-1', name: 'skill_run', arguments: {} },
          { id: 'save-1', name: 'save_note', arguments: {} },
        ],
      },
      { text: 'Done.' },
    ]);
    try {
      const middleware = createSkillMiddleware({
        repository: notesRepository,
        executionTools,
        toolPool: [poolTool('save_note')],
        enforceAllowedTools: true,
      });
      const agent = createAgent({ model, tools: [], middleware: [middleware] });
      await agent.invoke({ messages: [{ role: 'user', content: 'Note this.' }] });
      expect(toolNamesOf(server.requests[0]!)).toContain('skill_run');
      expect(toolNamesOf(server.requests[1]!)).toContain('save_note');
      expect(toolNamesOf(server.requests[1]!)).not.toContain('skill_run');
      const refused = toolResultText(server.requests[2], 'run-1');
      expect(refused).toContain('the loaded skill "notes" restricts the tools to its allowed-tools');
      expect(ran).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('names a bad option', () => {
    expect(() => createSkillMiddleware({ repository, loadMode: 'forever' as never })).toThrow(/loadMode/);
    expect(() => createSkillMiddleware({ repository: {} as never })).toThrow(/repository.*SkillRepository/);
  });
});
