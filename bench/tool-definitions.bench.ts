// Tokens spent on tool definitions with dynamic tool selection, against registering the whole pool.
// For pools of 5, 20, 50 and 100 tools, one skill lists 3 of them in its Tools: section. The agent
// runs one turn (skill_load, one pool tool call, answer) through the real OpenAI-compatible
// provider and HTTP on loopback; we tokenise (o200k_base) the `tools` JSON each request carried.
// The floor is the skill tools alone (what any request must carry); "static" registers every pool
// tool in every request, which is what AI SDK users do without selection (no npm peer selects tools
// per loaded skill, so static registration is the peer figure).

import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { jsonSchema, stepCountIs, streamText, type Tool, tool } from 'ai';
import { countTokens } from '../src/disclosure/token-counter.js';
import { createSkillAgent, createSkillCallContext, createSkillToolkit } from '../src/integrations/ai-sdk/index.js';
import { createMemorySkillRepository } from '../src/repository/memory-skill-repository.js';
import { createInMemoryStateView } from '../src/state/in-memory-state-view.js';
import { type RecordedRequest, startScriptedOpenAiServer } from '../test/support/scripted-openai-server.js';

const poolSizes = [5, 20, 50, 100];

function poolTool(index: number): Tool {
  return tool({
    description: `Query service ${index} of the operations platform: returns the current status, owner team and open incidents for the named resource, optionally filtered by region and time window.`,
    inputSchema: jsonSchema({
      type: 'object',
      properties: {
        resource: { type: 'string', description: 'Name of the resource to query.' },
        region: { type: 'string', enum: ['eu', 'us', 'apac'], description: 'Region to restrict the query to.' },
        window_hours: { type: 'integer', minimum: 1, maximum: 168, description: 'How many hours back to look.' },
      },
      required: ['resource'],
      additionalProperties: false,
    }),
    execute: async ({ resource }) => ({ resource, status: 'ok' }),
  });
}

function toolTokens(request: RecordedRequest | undefined): number {
  return request?.body.tools === undefined ? 0 : countTokens(JSON.stringify(request.body.tools));
}

async function turn(size: number, dynamic: boolean): Promise<RecordedRequest[]> {
  const pool: Record<string, Tool> = {};
  for (let index = 1; index <= size; index += 1) pool[`ops_tool_${index}`] = poolTool(index);
  const repository = createMemorySkillRepository([
    {
      name: 'ops-status',
      description: 'Check the status of platform resources.',
      body: 'Use ops_tool_1 for status, ops_tool_2 for owners, ops_tool_3 for incidents.',
      tools: ['ops_tool_1', 'ops_tool_2', 'ops_tool_3'],
    },
  ]);
  const server = await startScriptedOpenAiServer([
    { toolCalls: [{ name: 'skill_load', arguments: { skill: 'ops-status' } }] },
    { toolCalls: [{ name: 'ops_tool_1', arguments: { resource: 'db-1' } }] },
    { text: 'db-1 is ok.' },
  ]);
  try {
    const provider = createOpenAICompatible({ name: 'bench', baseURL: server.baseUrl, apiKey: 'bench' });
    // Without selection, the pool goes in as ordinary tools: always registered, always sent.
    if (!dynamic) return await staticTurn(server, provider, repository, pool);
    const agent = createSkillAgent({
      model: provider.chatModel('bench'),
      repository,
      toolPool: pool,
      profile: 'knowledge',
    });
    for await (const _ of agent.run({ userId: 'bench', sessionId: `tools-${size}`, message: 'Status of db-1?' }));
    return [...server.requests];
  } finally {
    await server.close();
  }
}

/** The same turn with every pool tool registered statically next to the skill tools. */
async function staticTurn(
  server: Awaited<ReturnType<typeof startScriptedOpenAiServer>>,
  provider: ReturnType<typeof createOpenAICompatible>,
  repository: ReturnType<typeof createMemorySkillRepository>,
  pool: Record<string, Tool>,
): Promise<RecordedRequest[]> {
  const toolkit = createSkillToolkit({ repository, profile: 'knowledge' });
  const result = streamText({
    model: provider.chatModel('bench'),
    tools: { ...toolkit.tools, ...pool },
    // The skill prepareStep still materialises, but its activeTools would hide the pool: keep every tool.
    prepareStep: async (options) => ({ ...(await toolkit.prepareStep(options)), activeTools: undefined }),
    messages: [{ role: 'user', content: 'Status of db-1?' }],
    stopWhen: stepCountIs(5),
    ...toolkit.contextOptions(createSkillCallContext({ sessionId: 'static', state: createInMemoryStateView() })),
  });
  await result.consumeStream();
  return [...server.requests];
}

export async function run(): Promise<void> {
  console.log(
    'tool-definition tokens per request (o200k_base of the `tools` JSON sent), one turn: load skill, call 1 pool tool, answer',
  );
  console.log(
    'pool  static/request  dynamic before load  dynamic after load  floor (skill tools)  static/dynamic (whole turn)',
  );
  for (const size of poolSizes) {
    const staticRequests = await turn(size, false);
    const dynamicRequests = await turn(size, true);
    const floor = toolTokens(dynamicRequests[0]);
    const staticTotal = staticRequests.reduce((sum, request) => sum + toolTokens(request), 0);
    const dynamicTotal = dynamicRequests.reduce((sum, request) => sum + toolTokens(request), 0);
    console.log(
      `${String(size).padStart(4)}  ${String(toolTokens(staticRequests[0])).padStart(14)}  ${String(toolTokens(dynamicRequests[0])).padStart(19)}  ${String(toolTokens(dynamicRequests[1])).padStart(18)}  ${String(floor).padStart(19)}  ${(staticTotal / dynamicTotal).toFixed(2).padStart(27)}x`,
    );
  }
}
