import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { stepCountIs, streamText } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSkillAgent } from '../integrations/ai-sdk/skill-agent.js';
import { createSkillCallContext } from '../integrations/ai-sdk/skill-call-context.js';
import { createSkillToolkit } from '../integrations/ai-sdk/skill-toolkit.js';
import { createScriptedModel } from '../integrations/ai-sdk/testing/scripted-model.js';
import { createSkillMcpServer } from '../integrations/mcp/skill-mcp-server.js';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { createInMemoryStateView } from '../state/in-memory-state-view.js';

const root = resolve(import.meta.dirname, '../..');
const repository = createMemorySkillRepository([
  { name: 'haiku', description: 'Writes haiku.', body: 'Five, seven, five.' },
]);

// The application's tracing: the current trace SDK, registered the way an application does.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

describe('skill tool spans reach the application trace SDK', () => {
  beforeAll(() => {
    trace.setGlobalTracerProvider(provider);
  });
  beforeEach(() => exporter.reset());
  afterAll(async () => {
    trace.disable();
    await provider.shutdown();
  });

  it('an AI SDK call of skill_load is an `execute_tool skill_load` span with the GenAI attributes; a refused call records its error', async () => {
    const toolkit = createSkillToolkit({ repository });
    const { model } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'haiku' }, id: 'call-1' }] },
      { toolCalls: [{ name: 'skill_read', input: { skill: 'haiku', path: 'missing.md' }, id: 'call-2' }] },
      { text: 'done' },
    ]);
    const result = streamText({
      model,
      tools: toolkit.tools,
      prepareStep: toolkit.prepareStep,
      prompt: 'a haiku please',
      stopWhen: stepCountIs(5),
      ...toolkit.contextOptions(
        createSkillCallContext({ sessionId: 'conversation-7', state: createInMemoryStateView() }),
      ),
    });
    expect(await result.text).toBe('done');
    const spans = exporter.getFinishedSpans();
    const load = spans.find((span) => span.name === 'execute_tool skill_load');
    expect(load?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'skill_load',
      'gen_ai.tool.call.id': 'call-1',
      'gen_ai.tool.type': 'function',
      'gen_ai.conversation.id': 'conversation-7',
    });
    expect(load?.instrumentationScope.name).toBe('skillbox');
    const read = spans.find((span) => span.name === 'execute_tool skill_read');
    expect(read?.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'call-2', 'error.type': 'SkillToolError' });
    expect(read?.status.code).toBe(2); // SpanStatusCode.ERROR
  });

  it('a createSkillAgent turn is one `invoke_agent` span, parent of its tool spans; a failed turn records its error', async () => {
    const { model } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'haiku' }, id: 'turn-1' }] },
      { toolCalls: [{ name: 'skill_read', input: { skill: 'haiku' }, id: 'turn-2' }] },
      { text: 'done' },
    ]);
    const agent = createSkillAgent({ model, repository, name: 'poet' });
    for await (const _event of agent.run({ userId: 'u', sessionId: 'conversation-9', message: 'a haiku' })) {
      // drained
    }
    const spans = exporter.getFinishedSpans();
    const turns = spans.filter((span) => span.name === 'invoke_agent poet');
    expect(turns).toHaveLength(1);
    const turn = turns[0]!;
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'poet',
      'gen_ai.conversation.id': 'conversation-9',
      'gen_ai.request.model': 'mock-model-id',
    });
    const tools = spans.filter((span) => span.name.startsWith('execute_tool '));
    expect(tools.map((span) => span.name).sort()).toEqual(['execute_tool skill_load', 'execute_tool skill_read']);
    for (const tool of tools) {
      expect(tool.spanContext().traceId).toBe(turn.spanContext().traceId);
      expect(tool.parentSpanContext?.spanId).toBe(turn.spanContext().spanId);
    }

    exporter.reset();
    const broken = createSkillAgent({ model: createScriptedModel([]).model, repository, name: 'poet' });
    await expect(
      (async () => {
        for await (const _event of broken.run({ userId: 'u', sessionId: 'conversation-10', message: 'hi' })) {
          // drained
        }
      })(),
    ).rejects.toThrow();
    const failed = exporter.getFinishedSpans().find((span) => span.name === 'invoke_agent poet');
    expect(failed?.status.code).toBe(2);
    expect(failed?.attributes['error.type']).toBeDefined();
  });

  it('an MCP tools/call is an `execute_tool` span named after the tool, with the request id as the call id', async () => {
    const served = await createSkillMcpServer({ repository, sessionId: 'mcp-1' });
    const client = new Client({ name: 'test', version: '1.0.0' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await served.server.connect(serverTransport);
    await client.connect(clientTransport);
    try {
      await client.callTool({ name: 'skill_load', arguments: { skill: 'haiku' } });
    } finally {
      await client.close();
      await served.server.close();
    }
    const span = exporter.getFinishedSpans().find((candidate) => candidate.name === 'execute_tool skill_load');
    expect(span?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'skill_load',
      'gen_ai.conversation.id': 'mcp-1',
    });
    expect(span?.attributes['gen_ai.tool.call.id']).toMatch(/^\d+$/);
  });

  it('share the application copy of @opentelemetry/api: skillbox only declares it as an optional peer, with a range the current SDK accepts', () => {
    // A dependency of its own would install a second copy whenever the SDK pins an older 1.x, and
    // that copy refuses the SDK's provider: every span would be lost, as the first test shows it is not.
    const manifest = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
    expect(manifest.dependencies?.['@opentelemetry/api']).toBeUndefined();
    expect(manifest.peerDependencies['@opentelemetry/api']).toBe('^1.3.0');
    expect(manifest.peerDependenciesMeta['@opentelemetry/api']).toEqual({ optional: true });
    const sdk = JSON.parse(
      readFileSync(resolve(root, 'node_modules/@opentelemetry/sdk-trace-base/package.json'), 'utf8'),
    );
    expect(sdk.peerDependencies['@opentelemetry/api']).toBe('>=1.3.0 <1.10.0');
  });
});
