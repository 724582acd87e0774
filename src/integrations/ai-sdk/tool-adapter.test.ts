import { stepCountIs, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readLoadedSkills } from '../../disclosure/loaded-skills.js';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { docsKey, loadedKey, loadedOrderKey } from '../../state/state-keys.js';
import type { StateView } from '../../state/state-view.js';
import { createSkillTools } from '../../tools/create-skill-tools.js';
import { SkillToolError } from '../../tools/errors.js';
import type { ToolDefinition } from '../../tools/types.js';
import { skillContextCallOptions } from './ai-sdk-versions.js';
import { MissingSkillCallContextError } from './errors.js';
import { createSkillCallContext, type SkillCallContext, type StateChange } from './skill-call-context.js';
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
    if (word === 'bad')
      throw new SkillToolError('the word "bad" cannot be remembered; call remember with another word');
    return `remembered ${word} for ${context.sessionId}/${context.agentName}`;
  },
};

/** The second argument of a tool's `execute` as both majors fill it: ai 7's `context`, ai 6's `experimental_context`. */
function executionOptions(toolCallId: string, context?: SkillCallContext) {
  return { toolCallId, messages: [], context, experimental_context: context } as never;
}

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
      ...skillContextCallOptions(
        createSkillCallContext({ sessionId: 's1', state, onStateChange: (change) => changes.push(change) }),
        ['remember'],
      ),
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
    expect(calls[2]?.prompt.at(-1)).toMatchObject({
      role: 'tool',
      content: [{ output: { type: 'text', value: 'remembered good for s1/assistant' } }],
    });
    expect(state.snapshot()).toEqual({ 'word:good': 'c2' });
    expect(changes).toEqual([
      { source: 'tool', toolCallId: 'c2', toolName: 'remember', delta: { 'word:good': 'c2', keep: null } },
    ]);
  });

  it('uses a fixed context when the call carries none, and says what to pass when there is neither', async () => {
    const state = mapState();
    const fixed = toAiSdkTool(remember, {
      context: createSkillCallContext({ sessionId: 'fixed', agentName: 'helper', state }),
    });
    await expect(fixed.execute?.({ word: 'x' }, executionOptions('t'))).resolves.toBe('remembered x for fixed/helper');
    const bare = toAiSdkTool(remember);
    await expect(bare.execute?.({ word: 'x' }, executionOptions('t'))).rejects.toBeInstanceOf(
      MissingSkillCallContextError,
    );
    expect(state.snapshot()).toEqual({ 'word:x': 't' });
  });

  it('refuses two tools of one name', () => {
    expect(() => toAiSdkTools([remember, remember])).toThrow(
      'toAiSdkTools: option "definitions" holds two tools named "remember"',
    );
  });
});

describe('parallel tool calls in one step', () => {
  const repository = createMemorySkillRepository([
    {
      name: 'alpha',
      description: 'a',
      body: 'A',
      files: { 'docs/one.md': '1', 'docs/two.md': '2', 'docs/three.md': '3' },
    },
    { name: 'beta', description: 'b', body: 'B' },
    { name: 'gamma', description: 'c', body: 'C' },
  ]);

  it('run one after another per state and agent, so three loads honour maxLoadedSkills and the order', async () => {
    const state = mapState();
    const changes: StateChange[] = [];
    const tools = toAiSdkTools(createSkillTools({ repository, maxLoadedSkills: 2 }));
    const { model } = createScriptedModel([
      {
        toolCalls: [
          { name: 'skill_load', input: { skill: 'alpha' } },
          { name: 'skill_load', input: { skill: 'beta' } },
          { name: 'skill_load', input: { skill: 'gamma' } },
        ],
      },
      { text: 'done' },
    ]);
    const result = streamText({
      model,
      prompt: 'load three',
      tools,
      stopWhen: stepCountIs(3),
      ...skillContextCallOptions(
        createSkillCallContext({ sessionId: 's', state, onStateChange: (change) => changes.push(change) }),
        Object.keys(tools),
      ),
    });
    expect(await result.text).toBe('done');
    expect(readLoadedSkills(state, 'assistant').map((skill) => skill.name)).toEqual(['beta', 'gamma']);
    expect(state.get(loadedOrderKey('assistant'))).toBe('["beta","gamma"]');
    expect(changes.map((change) => change.toolName)).toEqual(['skill_load', 'skill_load', 'skill_load']);
  });

  it('keep every concurrent skill_select_docs add', async () => {
    const state = mapState({ [loadedKey('assistant', 'alpha')]: '1' });
    const tools = toAiSdkTools(createSkillTools({ repository }));
    const context = createSkillCallContext({ sessionId: 's', state });
    const select = (doc: string, id: string) =>
      tools.skill_select_docs!.execute!({ skill: 'alpha', docs: [doc], mode: 'add' }, executionOptions(id, context));
    await Promise.all([select('docs/one.md', 'a'), select('docs/two.md', 'b'), select('docs/three.md', 'c')]);
    expect(JSON.parse(state.get(docsKey('assistant', 'alpha')) ?? '[]')).toEqual([
      'docs/one.md',
      'docs/two.md',
      'docs/three.md',
    ]);
  });

  it('of other agents or other states do not wait for each other, and a failed call releases the next', async () => {
    const state = mapState();
    const tools = toAiSdkTools(createSkillTools({ repository }));
    const call = (agentName: string, skill: string) =>
      tools.skill_load!.execute!(
        { skill },
        executionOptions(skill, createSkillCallContext({ sessionId: 's', agentName, state })),
      );
    const outcomes = await Promise.allSettled([call('one', 'nope'), call('one', 'alpha'), call('two', 'beta')]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(readLoadedSkills(state, 'one').map((skill) => skill.name)).toEqual(['alpha']);
    expect(readLoadedSkills(state, 'two').map((skill) => skill.name)).toEqual(['beta']);
  });
});
