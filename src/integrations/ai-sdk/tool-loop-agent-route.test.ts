// The usual Next.js route shape with the user's own agent: `new ToolLoopAgent({ tools, prepareStep })`
// from a skill toolkit, served by `createAgentUIStreamResponse`. Without a context the toolkit must
// still work (each call its own session), not send the UI only "An error occurred.".
import {
  createAgentUIStreamResponse,
  readUIMessageStream,
  stepCountIs,
  ToolLoopAgent,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { createSkillToolkit } from './skill-toolkit.js';
import { createScriptedModel } from './testing/scripted-model.js';

const repository = createMemorySkillRepository([
  { name: 'poetry', description: 'Write poems.', body: 'BODY: answer in haiku.' },
]);

const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });

/** The route's Response body, read back as UI message chunks and as the final message. */
async function answerOf(response: Response): Promise<{ chunks: UIMessageChunk[]; message: UIMessage | undefined }> {
  const text = await response.text();
  const chunks = text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice('data: '.length)) as UIMessageChunk);
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let message: UIMessage | undefined;
  for await (const update of readUIMessageStream({ stream })) message = update;
  return { chunks, message };
}

describe('a ToolLoopAgent built from a skill toolkit, behind createAgentUIStreamResponse', () => {
  it('loads a skill and answers, with the body in the model request, without any context option', async () => {
    const { model, calls } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'poetry' }, id: 'l1' }] },
      { text: 'An old silent pond' },
    ]);
    const toolkit = createSkillToolkit({ repository, instructions: 'Be brief.' });
    const agent = new ToolLoopAgent({
      model,
      tools: toolkit.tools,
      prepareStep: toolkit.prepareStep,
      stopWhen: stepCountIs(5),
    });
    const response = await createAgentUIStreamResponse({ agent, uiMessages: [user('m1', 'a poem please')] });
    const { chunks, message } = await answerOf(response);
    expect(chunks.filter((chunk) => chunk.type === 'error')).toEqual([]);
    const parts = message?.parts ?? [];
    expect(
      parts.some((part) => part.type === 'tool-skill_load' && (part as { state: string }).state === 'output-available'),
    ).toBe(true);
    expect(
      parts
        .filter((part) => part.type === 'text')
        .map((part) => (part as { text: string }).text)
        .join(''),
    ).toBe('An old silent pond');
    expect(JSON.stringify(calls[0]?.prompt)).toContain('poetry');
    expect(JSON.stringify(calls[1]?.prompt)).toContain('BODY: answer in haiku.');
  });
});
