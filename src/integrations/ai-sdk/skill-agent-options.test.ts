import { jsonSchema, type ModelMessage, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../../config/config-error.js';
import { isSkillboxError } from '../../errors.js';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { LocalRuntime } from '../../runtime/local-runtime.js';
import type { SkillAgentEvent } from './agent-events.js';
import { windowHistory } from './history-window.js';
import { createSkillAgent } from './skill-agent.js';
import { createSkillPrepareStep } from './skill-prepare-step.js';
import { createSkillToolkit } from './skill-toolkit.js';
import { createScriptedModel } from './testing/scripted-model.js';

const repository = createMemorySkillRepository([
  { name: 'poetry', description: 'Write poems.', body: 'Write haiku.', tools: ['count_syllables'] },
]);
const textTool = (description: string, result: unknown) =>
  tool({
    description,
    inputSchema: jsonSchema<{ text?: string }>({ type: 'object', properties: { text: { type: 'string' } } }),
    execute: async () => result,
  });
const toolPool = { count_syllables: textTool('Count syllables.', 3) };

async function collect(events: AsyncIterable<SkillAgentEvent>): Promise<SkillAgentEvent[]> {
  const all: SkillAgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe('createSkillAgent: custom tools', () => {
  it('are active from the first step, before any skill is loaded, next to the skill tools', async () => {
    const { model, calls } = createScriptedModel([
      { toolCalls: [{ name: 'current_time', input: {}, id: 't1' }] },
      { text: 'noon' },
    ]);
    const agent = createSkillAgent({
      model,
      repository,
      toolPool,
      tools: { current_time: textTool('The time.', '12:00') },
    });
    expect(agent.toolNames.at(-1)).toBe('current_time');
    const events = await collect(agent.run({ userId: 'u', sessionId: 's', message: 'time?' }));
    expect(calls[0]?.tools?.map((entry) => entry.name)).toContain('current_time');
    expect(calls[0]?.tools?.map((entry) => entry.name)).not.toContain('count_syllables');
    expect(events.find((event) => event.type === 'tool-result')).toMatchObject({
      toolName: 'current_time',
      output: '12:00',
    });
    expect(events.find((event) => event.type === 'step-finish')).toMatchObject({
      activeTools: expect.arrayContaining(['skill_load', 'current_time']),
    });
  });

  it('refuses a name taken by a skill tool or a pool tool at construction', () => {
    const { model } = createScriptedModel([]);
    for (const name of ['skill_load', 'count_syllables']) {
      const attempt = () => createSkillAgent({ model, repository, toolPool, tools: { [name]: textTool('clash', 0) } });
      expect(attempt).toThrow(SkillboxConfigError);
      expect(attempt).toThrow(`createSkillAgent: option "tools.${name}" has the name of a skill tool or a pool tool`);
    }
  });
});

describe('createSkillAgent: call settings', () => {
  it('passes temperature, maxOutputTokens and providerOptions to every model call', async () => {
    const { model, calls } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'poetry' } }] },
      { text: 'ok' },
    ]);
    const agent = createSkillAgent({
      model,
      repository,
      callSettings: {
        temperature: 0.2,
        maxOutputTokens: 321,
        seed: 7,
        providerOptions: { openai: { reasoningEffort: 'low' } },
      },
    });
    await collect(agent.run({ userId: 'u', sessionId: 's', message: 'poem' }));
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call).toMatchObject({
        temperature: 0.2,
        maxOutputTokens: 321,
        seed: 7,
        providerOptions: { openai: { reasoningEffort: 'low' } },
      });
    }
  });

  it('refuses settings the agent owns', () => {
    const { model } = createScriptedModel([]);
    expect(() =>
      createSkillAgent({
        model,
        repository,
        callSettings: { abortSignal: new AbortController().signal } as never,
      }),
    ).toThrow(
      'createSkillAgent: option "callSettings.abortSignal" belongs to each run: pass it to run({ abortSignal })',
    );
    expect(() => createSkillAgent({ model, repository, callSettings: { tools: {} } as never })).toThrow(
      'createSkillAgent: option "callSettings.tools" is set by the agent, not a call setting',
    );
  });
});

describe('createSkillAgent: history window', () => {
  async function threeTurns(options: {
    maxHistoryMessages?: number;
    prepareHistory?: (messages: ModelMessage[]) => ModelMessage[];
  }) {
    const { model, calls } = createScriptedModel([{ text: 'one' }, { text: 'two' }, { text: 'three' }]);
    const agent = createSkillAgent({ model, repository, ...options });
    for (const message of ['first', 'second', 'third'])
      await collect(agent.run({ userId: 'u', sessionId: 's', message }));
    return calls[2]!.prompt.filter((message) => message.role !== 'system');
  }

  it('replays everything by default', async () => {
    expect((await threeTurns({})).map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
  });

  it('maxHistoryMessages keeps the last messages, starting at a user message', async () => {
    const prompt = await threeTurns({ maxHistoryMessages: 3 });
    // The last 3 stored were [assistant one, user second, assistant two]: the window opens at "second".
    expect(prompt.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(prompt[0])).toContain('second');
    expect(() => createSkillAgent({ model: createScriptedModel([]).model, repository, maxHistoryMessages: 0 })).toThrow(
      /maxHistoryMessages/,
    );
  });

  it('prepareHistory rewrites what is replayed', async () => {
    const seen: number[] = [];
    const prompt = await threeTurns({
      prepareHistory: (messages) => {
        seen.push(messages.length);
        return messages.filter((message) => message.role === 'user');
      },
    });
    expect(seen).toEqual([0, 2, 4]);
    expect(prompt.map((message) => message.role)).toEqual(['user', 'user', 'user']);
  });

  it('windowHistory never opens on a tool result', () => {
    const history: ModelMessage[] = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't', input: {} }] },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'text', value: 'x' } }],
      },
      { role: 'assistant', content: 'done' },
    ];
    expect(windowHistory(history, 2)).toEqual([]);
    expect(windowHistory(history, 4)).toEqual(history);
    expect(windowHistory([...history, { role: 'user', content: 'b' }], 3)).toEqual([{ role: 'user', content: 'b' }]);
  });
});

describe('one name for the skill source, and a runtime for the toolkit too', () => {
  const skills = createMemorySkillRepository([{ name: 'poetry', description: 'Write poems.', body: 'haiku' }]);

  it('the agent takes `repository` like every other API; the old name `skills` is gone', () => {
    const { model } = createScriptedModel([]);
    expect(createSkillAgent({ model, repository: skills }).toolNames).toContain('skill_load');
    // The old name says what to use instead, beside the missing repository.
    expect(() => createSkillAgent({ model, skills } as never)).toThrow('"skills" was removed in 0.1; use repository');
    expect(() => createSkillAgent({ model } as never)).toThrow(
      'createSkillAgent: option "repository" is required: the SkillRepository skills come from',
    );
  });

  it('createSkillToolkit takes a runtime the way the agent does: skill_run and workspace_exec, the full profile, one workspace manager', () => {
    const toolkit = createSkillToolkit({ repository: skills, runtime: new LocalRuntime() });
    expect(toolkit.skillToolNames).toEqual(expect.arrayContaining(['skill_load', 'skill_run', 'workspace_exec']));
    expect(toolkit.workspaces).toBeDefined();
    expect(createSkillToolkit({ repository: skills }).skillToolNames).not.toContain('skill_run');
    expect(() => createSkillToolkit({ repository: skills, execution: {} })).toThrow(/execution/);
  });
});

describe('bad options of the AI SDK factories', () => {
  const skills = createMemorySkillRepository([{ name: 'poetry', description: 'Write poems.', body: 'haiku' }]);

  it('lists every wrong option of createSkillAgent at once, as one SkillboxConfigError', () => {
    const { model } = createScriptedModel([]);
    let caught: unknown;
    try {
      createSkillAgent({
        model,
        repository: skills,
        maxSteps: 0,
        loadMode: 'forever' as never,
        callSettings: { system: 'x' } as never,
        execution: {},
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SkillboxConfigError);
    expect(isSkillboxError(caught, 'CONFIG_INVALID')).toBe(true);
    const error = caught as SkillboxConfigError;
    expect(error.component).toBe('createSkillAgent');
    expect(error.option).toBe('loadMode');
    expect(error.message).toBe(
      [
        'createSkillAgent: 4 invalid options:',
        '  - "loadMode" must be one of "turn", "once", "session"; got "forever"',
        '  - "maxSteps" must be a positive integer; got 0',
        '  - "execution" needs a runtime or workspaces to run anything',
        '  - "callSettings.system" is set by the agent, not a call setting',
      ].join('\n'),
    );
  });

  it('names the toolkit and the prepare step when they are used alone', () => {
    expect(() =>
      createSkillToolkit({ repository: skills, maxCachedToolkits: 0, toolPool: [] as never } as never),
    ).toThrow('createSkillToolkit: option "toolPool" must be a record of AI SDK tools by name; got an array of 0');
    expect(() =>
      createSkillPrepareStep({
        repository: skills,
        skillToolNames: ['skill_load'],
        toolPool: { skill_load: {} as never },
      }),
    ).toThrow('createSkillPrepareStep: option "toolPool.skill_load" has the name of a skill tool');
  });
});
