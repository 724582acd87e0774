import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from './scripted-openai-server.js';

let server: ScriptedOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function provider(baseUrl: string) {
  return createOpenAICompatible({ name: 'scripted', baseURL: baseUrl, apiKey: 'test-key', includeUsage: true });
}

const echo = tool({
  description: 'Echo a word.',
  inputSchema: jsonSchema<{ word: string }>({
    type: 'object',
    properties: { word: { type: 'string' } },
    required: ['word'],
  }),
  execute: async ({ word }) => `echo:${word}`,
});

describe('scripted OpenAI-compatible server', () => {
  it('answers non-streaming requests with scripted tool calls, then text, and records each body', async () => {
    server = await startScriptedOpenAiServer([
      { toolCalls: [{ name: 'echo', arguments: { word: 'hi' } }] },
      { text: 'done', usage: { promptTokens: 7, completionTokens: 2 } },
    ]);
    const result = await generateText({
      model: provider(server.baseUrl).chatModel('m1'),
      prompt: 'say hi',
      tools: { echo },
      stopWhen: ({ steps }) => steps.length >= 3,
    });
    expect(result.text).toBe('done');
    // The scripted usage of the step that answered (ai 7's `result.usage` sums every step; ai 6's is the last step's).
    expect(result.steps.at(-1)?.usage.inputTokens).toBe(7);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer test-key');
    expect(server.requests[0]?.body.tools?.map((entry) => entry.function.name)).toEqual(['echo']);
    expect(server.requests[1]?.body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_1_1',
      content: 'echo:hi',
    });
  });

  it('streams text in several deltas and tool-call arguments in pieces', async () => {
    server = await startScriptedOpenAiServer([
      { toolCalls: [{ name: 'echo', arguments: { word: 'streamed' } }] },
      { text: 'a streamed answer' },
    ]);
    const result = streamText({
      model: provider(server.baseUrl).chatModel('m1'),
      prompt: 'go',
      tools: { echo },
      stopWhen: ({ steps }) => steps.length >= 3,
    });
    const deltas: string[] = [];
    for await (const part of result.fullStream) if (part.type === 'text-delta') deltas.push(part.text);
    expect(deltas.join('')).toBe('a streamed answer');
    expect(deltas.length).toBeGreaterThan(1);
    expect(server.requests[0]?.body.stream).toBe(true);
    expect(server.requests[1]?.body.messages.at(-1)).toMatchObject({ role: 'tool', content: 'echo:streamed' });
  });

  it('fails clearly when the script runs out and can script HTTP errors', async () => {
    server = await startScriptedOpenAiServer([{ errorStatus: 401, errorMessage: 'bad key' }]);
    await expect(
      generateText({ model: provider(server.baseUrl).chatModel('m1'), prompt: 'x', maxRetries: 0 }),
    ).rejects.toThrow(/bad key/);
    await expect(
      generateText({ model: provider(server.baseUrl).chatModel('m1'), prompt: 'x', maxRetries: 0 }),
    ).rejects.toThrow(/no response scripted for request 2/);
  });
});
