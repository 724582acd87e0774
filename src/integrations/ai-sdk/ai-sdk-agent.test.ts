import { createAgentUIStream, DefaultChatTransport, jsonSchema, readUIMessageStream, tool, type UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { createChatRoute } from '../../../examples/ai-sdk-chat/chat-route.js';
import { SkillboxConfigError } from '../../config/config-error.js';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { createMemorySessionStore } from '../../sessions/memory-session-store.js';
import { loadedKey } from '../../state/state-keys.js';
import { createSkillAgent } from './skill-agent.js';
import { createScriptedModel } from './testing/scripted-model.js';

const repository = createMemorySkillRepository([
  { name: 'poetry', description: 'Write poems.', body: 'BODY: answer in haiku.', tools: ['count_syllables'] },
]);
const toolPool = {
  count_syllables: tool({
    description: 'Count syllables.',
    inputSchema: jsonSchema<{ text: string }>({ type: 'object', properties: { text: { type: 'string' } } }),
    execute: async ({ text }) => text.split(/\s+/).length,
  }),
};

/** Drives the agent as `createAgentUIStreamResponse` / `useChat` do, and reads the stream back with the AI SDK's own reader. */
async function chat(
  agent: ReturnType<ReturnType<typeof createSkillAgent>['asAiSdkAgent']>,
  uiMessages: UIMessage[],
  options: { userId: string; sessionId: string },
): Promise<UIMessage> {
  const stream = await createAgentUIStream({ agent, uiMessages, options });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream })) last = message;
  if (last === undefined) throw new Error('the UI message stream carried no message');
  return last;
}

const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });

describe('createSkillAgent(...).asAiSdkAgent()', () => {
  it('streams UI messages through createAgentUIStream: tool parts, text, and the skill body only in the request; the session keeps the loaded skill', async () => {
    const { model, calls } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'poetry' }, id: 'l1' }] },
      { toolCalls: [{ name: 'count_syllables', input: { text: 'old silent pond' }, id: 'c1' }] },
      { text: 'An old silent pond' },
      { text: 'A frog jumps in' },
    ]);
    const sessions = createMemorySessionStore();
    const agent = createSkillAgent({
      model,
      repository,
      sessions,
      toolPool,
      loadMode: 'session',
      instructions: 'Be brief.',
    }).asAiSdkAgent();
    expect(agent.version).toBe('agent-v1');
    expect(Object.keys(agent.tools)).toContain('skill_load');

    const answer = await chat(agent, [user('m1', 'a poem please')], { userId: 'u', sessionId: 's' });
    expect(answer.role).toBe('assistant');
    const toolParts = answer.parts.filter((part) => part.type.startsWith('tool-'));
    expect(toolParts.map((part) => [part.type, (part as { state: string }).state])).toEqual([
      ['tool-skill_load', 'output-available'],
      ['tool-count_syllables', 'output-available'],
    ]);
    expect(
      answer.parts
        .filter((part) => part.type === 'text')
        .map((part) => (part as { text: string }).text)
        .join(''),
    ).toBe('An old silent pond');
    expect(JSON.stringify(answer)).not.toContain('BODY: answer in haiku.');
    // The model saw the body, and the pool tool only once the skill selected it.
    expect(JSON.stringify(calls[1]?.prompt)).toContain('BODY: answer in haiku.');
    expect(calls[0]?.tools?.map((declared) => declared.name)).not.toContain('count_syllables');
    expect(calls[1]?.tools?.map((declared) => declared.name)).toContain('count_syllables');
    const stored = await sessions.getSession({ userId: 'u', sessionId: 's' });
    expect(stored?.state[loadedKey('assistant', 'poetry')]).toBeDefined();

    // useChat sends the whole transcript again; the session's state keeps the skill loaded in session mode.
    await chat(agent, [user('m1', 'a poem please'), answer, user('m2', 'another')], { userId: 'u', sessionId: 's' });
    expect(calls[3]?.tools?.map((declared) => declared.name)).toContain('count_syllables');
    expect(JSON.stringify(calls[3]?.prompt)).toContain('BODY: answer in haiku.');
  });

  it('keeps the system text it is given first: the agent instructions, then the catalog', async () => {
    const { model, calls } = createScriptedModel([{ text: 'hi' }]);
    const agent = createSkillAgent({ model, repository, instructions: 'Be brief.' }).asAiSdkAgent();
    const result = await agent.generate({ prompt: 'hello', options: { userId: 'u', sessionId: 's' } });
    expect(result.text).toBe('hi');
    const system =
      calls[0]?.prompt.filter((message) => message.role === 'system').map((message) => message.content as string) ?? [];
    expect(system.join('\n').startsWith('Be brief.\n\n')).toBe(true);
    expect(system.join('\n')).toContain('- poetry: Write poems.');
  });

  it('needs the session in options, and says so', async () => {
    const { model } = createScriptedModel([]);
    const agent = createSkillAgent({ model, repository }).asAiSdkAgent();
    await expect(agent.generate({ prompt: 'hello' } as never)).rejects.toThrow(SkillboxConfigError);
    await expect(agent.generate({ prompt: 'hello', options: { userId: 'u', sessionId: '' } })).rejects.toThrow(
      /options\.sessionId/,
    );
  });
});

describe('examples/ai-sdk-chat/chat-route.ts', () => {
  it("answers useChat's own transport (DefaultChatTransport) with a UI message stream the SDK reads back", async () => {
    const { model } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'poetry' }, id: 'l1' }] },
      { text: 'An old silent pond' },
    ]);
    const sessions = createMemorySessionStore();
    const route = createChatRoute(createSkillAgent({ model, repository, sessions, toolPool, loadMode: 'session' }), {
      userOf: (request) => request.headers.get('x-user') ?? 'anonymous',
    });
    const transport = new DefaultChatTransport<UIMessage>({
      api: 'http://chat.test/api/chat',
      headers: { 'x-user': 'ada' },
      fetch: async (input, init) => route(new Request(input, init)),
    });
    const stream = await transport.sendMessages({
      trigger: 'submit-message',
      chatId: 'chat-1',
      messageId: undefined,
      messages: [user('m1', 'a poem please')],
      abortSignal: undefined,
    });
    let last: UIMessage | undefined;
    for await (const message of readUIMessageStream({ stream })) last = message;
    expect(last?.parts.some((part) => part.type === 'tool-skill_load')).toBe(true);
    expect(
      last?.parts
        .filter((part) => part.type === 'text')
        .map((part) => (part as { text: string }).text)
        .join(''),
    ).toBe('An old silent pond');
    expect(
      (await sessions.getSession({ userId: 'ada', sessionId: 'chat-1' }))?.state[loadedKey('assistant', 'poetry')],
    ).toBeDefined();
  });
});
