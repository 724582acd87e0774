import { describe, expect, it } from 'vitest';
import { stepCountIs, streamText } from 'ai';
import { z } from 'zod';
import { SkillToolError } from '../../tools/errors.js';
import type { StateView, ToolDefinition } from '../../tools/types.js';
import { MissingSkillCallContextError } from './errors.js';
import { createSkillCallContext, type StateChange } from './skill-call-context.js';
import { createScriptedModel } from './testing/scripted-model.js';
import { toAiSdkTool, toAiSdkTools } from './tool-adapter.js';

function mapState(initial: Record<string, string> = {}): StateView & { snapshot(): Record<string, string> } {
  const values = new Map(Object.entries(initial));
  return {
    get: (key) => values.get(key),
    set: (key, value) => (value === null ? values.delete(key) : values.set(key, value)),
    keys: () => [...values.keys()],
    snapshot: () => Object.fromEntries(values),
  };
}

const remember: ToolDefinition<{ word: string }, string> = {
  name: 'remember',
  description: 'Remember a word; refuses "bad" after writing, so the write must be discarded.',
  inputSchema: z.object({ word: z.string() }),
  async execute({ word }, context) {
    context.state.set(`word:${word}`, context.toolCallId ?? '');
    context.state.set('keep', null);
    if (word === 'bad') throw new SkillToolError('the word "bad" cannot be remembered; call remember with another word');
    return `remembered ${word} for ${context.sessionId}/${context.agentName}`;
  },
};

describe('toAiSdkTool', () => {
  it('commits a successful call and reports the delta; a SkillToolError reaches the model as the tool result and changes nothing', async () => {
    const state = mapState({ keep: 'yes' });
    const changes: StateChange[] = [];
    const { model, calls } = createScriptedModel([
      { toolCalls: [{ name: 'remember', input: { word: 'bad' }, id: 'c1' }] },
      { toolCalls: [{ name: 'remember', input: { word: 'good' }, id: 'c2' }] },
      { text: 'ok' },
    ]);
    const result = streamText({
      model,
      prompt: 'remember something',
      tools: toAiSdkTools([remember]),
      stopWhen: stepCountIs(5),
      experimental_context: createSkillCallContext({ sessionId: 's1', state, onStateChange: (change) => changes.push(change) }),
    });
    expect(await result.text).toBe('ok');
    expect(calls).toHaveLength(3);
    expect(calls[1]?.prompt.at(-1)).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'remember',
          output: { type: 'error-text', value: 'the word "bad" cannot be remembered; call remember with another word' },
        },
      ],
    });
    expect(calls[2]?.prompt.at(-1)).toMatchObject({ role: 'tool', content: [{ output: { type: 'text', value: 'remembered good for s1/assistant' } }] });
    expect(state.snapshot()).toEqual({ 'word:good': 'c2' });
    expect(changes).toEqual([{ source: 'tool', toolCallId: 'c2', toolName: 'remember', delta: { 'word:good': 'c2', keep: null } }]);
  });

  it('uses a fixed context when the call carries none, and says what to pass when there is neither', async () => {
    const state = mapState();
    const fixed = toAiSdkTool(remember, { context: createSkillCallContext({ sessionId: 'fixed', agentName: 'helper', state }) });
    await expect(fixed.execute?.({ word: 'x' }, { toolCallId: 't', messages: [] })).resolves.toBe('remembered x for fixed/helper');
    const bare = toAiSdkTool(remember);
    await expect(bare.execute?.({ word: 'x' }, { toolCallId: 't', messages: [] })).rejects.toBeInstanceOf(MissingSkillCallContextError);
    expect(state.snapshot()).toEqual({ 'word:x': 't' });
  });

  it('refuses two tools of one name', () => {
    expect(() => toAiSdkTools([remember, remember])).toThrow(/two tools are named "remember"/);
  });
});
