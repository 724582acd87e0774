import { jsonSchema, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../../config/config-error.js';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { createMemorySessionStore } from '../../sessions/memory-session-store.js';
import { loadedKey } from '../../state/state-keys.js';
import type { SkillAgentEvent } from './agent-events.js';
import { createSkillAgent } from './skill-agent.js';
import { createScriptedModel } from './testing/scripted-model.js';

const body = 'SECRET-BODY: always answer in haiku.';
const repository = createMemorySkillRepository([
  { name: 'poetry', description: 'Write poems.', body, tools: ['count_syllables'] },
  { name: 'staff-only', description: 'Internal.', body: 'internal' },
]);
const toolPool = {
  count_syllables: tool({
    description: 'Count syllables.',
    inputSchema: jsonSchema<{ text: string }>({ type: 'object', properties: { text: { type: 'string' } } }),
    execute: async ({ text }) => text.split(/\s+/).length,
  }),
};

async function collect(events: AsyncIterable<SkillAgentEvent>): Promise<SkillAgentEvent[]> {
  const result: SkillAgentEvent[] = [];
  for await (const event of events) result.push(event);
  return result;
}

describe('createSkillAgent', () => {
  it('streams typed events, shows a loaded skill as a stub, and stores the turn with its state', async () => {
    const { model, calls } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'poetry' }, id: 'l1' }], inputTokens: 100, outputTokens: 7 },
      { toolCalls: [{ name: 'count_syllables', input: { text: 'old silent pond' }, id: 'c1' }] },
      { text: 'An old silent pond' },
    ]);
    const sessions = createMemorySessionStore();
    const agent = createSkillAgent({
      model,
      repository,
      sessions,
      toolPool,
      loadMode: 'session',
      instructions: 'Be brief.',
    });
    const events = await collect(agent.run({ userId: 'u', sessionId: 's', message: 'a poem please' }));

    expect(events.map((event) => event.type)).toEqual([
      'tool-call',
      'state-change',
      'tool-result',
      'step-finish',
      'tool-call',
      'tool-result',
      'step-finish',
      'text-delta',
      'text-delta',
      'step-finish',
      'done',
    ]);
    expect(events[2]).toEqual({
      type: 'tool-result',
      stepNumber: 0,
      toolCallId: 'l1',
      toolName: 'skill_load',
      output: 'loaded: poetry',
    });
    expect(events[3]).toMatchObject({
      type: 'step-finish',
      usage: { inputTokens: 100, outputTokens: 7, totalTokens: 107 },
      activeTools: expect.not.arrayContaining(['count_syllables']),
    });
    expect(events[6]).toMatchObject({ type: 'step-finish', activeTools: expect.arrayContaining(['count_syllables']) });
    expect(events.at(-1)).toMatchObject({ type: 'done', text: 'An old silent pond', steps: 3, sessionVersion: 7 });
    expect(JSON.stringify(events)).not.toContain('SECRET-BODY');
    // The model, unlike the client, saw the body in the skill_load result.
    expect(JSON.stringify(calls[1]?.prompt)).toContain('SECRET-BODY');

    const stored = await sessions.getSession({ userId: 'u', sessionId: 's' });
    expect(stored?.events.map((event) => `${event.author}:${event.type}`)).toEqual([
      'user:message',
      'assistant:message',
      'assistant:message',
      'assistant:message',
      'assistant:message',
      'assistant:message',
      'assistant:state',
    ]);
    expect(JSON.stringify(stored?.events)).not.toContain('SECRET-BODY');
    expect(stored?.state[loadedKey('assistant', 'poetry')]).toBe('1');
    // Each step's first message says what its request held: nothing loaded, then poetry as a tool result.
    expect(stored?.events.map((event) => event.metadata?.request)).toEqual([
      undefined,
      {
        step: 0,
        loadedSkills: [],
        materialize: 'tool-result',
        tools: expect.any(Number),
        inputTokens: 100,
        cachedInputTokens: 0,
      },
      undefined,
      {
        step: 1,
        loadedSkills: ['poetry'],
        materialize: 'tool-result',
        tools: expect.any(Number),
        inputTokens: 10,
        cachedInputTokens: 0,
      },
      undefined,
      {
        step: 2,
        loadedSkills: ['poetry'],
        materialize: 'tool-result',
        tools: expect.any(Number),
        inputTokens: 10,
        cachedInputTokens: 0,
      },
      undefined,
    ]);
  });

  it('carries history and session-mode state into the next turn; turn mode unloads at the next turn', async () => {
    for (const loadMode of ['session', 'turn'] as const) {
      const { model, calls } = createScriptedModel([
        { toolCalls: [{ name: 'skill_load', input: { skill: 'poetry' } }] },
        { text: 'one' },
        { text: 'two' },
      ]);
      const agent = createSkillAgent({ model, repository, toolPool, loadMode });
      await collect(agent.run({ userId: 'u', sessionId: 's', message: 'first' }));
      await collect(agent.run({ userId: 'u', sessionId: 's', message: 'second' }));
      const third = calls[2]!;
      expect(third.prompt.filter((message) => message.role === 'user')).toHaveLength(2);
      expect(JSON.stringify(third.prompt).includes('SECRET-BODY')).toBe(loadMode === 'session');
      expect(third.tools?.some((entry) => entry.name === 'count_syllables')).toBe(loadMode === 'session');
    }
  });

  it('retries the append on top of a concurrent writer, losing neither side', async () => {
    const sessions = createMemorySessionStore();
    const key = { userId: 'u', sessionId: 'race' };
    await sessions.createSession(key);
    const { model } = createScriptedModel([{ text: 'hello' }]);
    const agent = createSkillAgent({ model, repository, sessions });
    const stream = agent.run({ ...key, message: 'hi' })[Symbol.asyncIterator]();
    await stream.next(); // the turn has read the session at version 0 and is streaming
    await sessions.appendEvents(key, [{ author: 'other', type: 'note', stateDelta: { other: 'x' } }], {
      expectedVersion: 0,
    });
    let done: SkillAgentEvent | undefined;
    for (let next = await stream.next(); !next.done; next = await stream.next()) done = next.value;
    expect(done).toMatchObject({ type: 'done', sessionVersion: 3 });
    const stored = await sessions.getSession(key);
    expect(stored?.events.map((event) => event.author)).toEqual(['other', 'user', 'assistant']);
    expect(stored?.state.other).toBe('x');
  });

  it('rejects a bad declared load before any model call and stores nothing; hidden skills cannot be declared', async () => {
    const sessions = createMemorySessionStore();
    const { model, calls } = createScriptedModel([{ text: 'never' }]);
    const agent = createSkillAgent({
      model,
      repository,
      sessions,
      filter: (summary, context) => summary.name !== 'staff-only' || context.roles?.includes('staff') === true,
    });
    await expect(
      collect(agent.run({ userId: 'u', sessionId: 's', message: 'x', skillLoads: [{ name: 'staff-only' }] })),
    ).rejects.toThrow(/staff-only/);
    expect(calls).toHaveLength(0);
    // Nothing happened, so nothing is stored: not even an empty session.
    expect(await sessions.getSession({ userId: 'u', sessionId: 's' })).toBeUndefined();
  });

  it("gives each run's model an enum of exactly the skills its context can see; a hidden skill is refused like an unknown one", async () => {
    const { model, calls } = createScriptedModel([
      {
        toolCalls: [
          { name: 'skill_load', input: { skill: 'staff-only' }, id: 'hidden' },
          { name: 'skill_load', input: { skill: 'no-such-skill' }, id: 'unknown' },
        ],
      },
      { text: 'cannot' },
      { toolCalls: [{ name: 'skill_load', input: { skill: 'staff-only' }, id: 'visible' }] },
      { text: 'loaded' },
    ]);
    const agent = createSkillAgent({
      model,
      repository,
      toolPool,
      filter: (summary, context) => summary.name !== 'staff-only' || context.roles?.includes('staff') === true,
    });
    const skillEnum = (call: (typeof calls)[number]) => {
      const load = call.tools?.find((entry) => entry.name === 'skill_load');
      if (load?.type !== 'function') throw new Error('skill_load was not sent as a function tool');
      return (load.inputSchema as { properties: { skill: { enum?: string[] } } }).properties.skill.enum;
    };
    const catalogOf = (call: (typeof calls)[number]) =>
      JSON.stringify(call.prompt.filter((message) => message.role === 'system'));

    const guest = await collect(agent.run({ userId: 'guest', sessionId: 's', message: 'internal please' }));
    expect(skillEnum(calls[0]!)).toEqual(['poetry']);
    expect(catalogOf(calls[0]!)).not.toContain('staff-only');
    const errors = guest
      .filter((event) => event.type === 'tool-result')
      .map((event) => (event as { error?: string }).error);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toBeDefined();
    expect(errors[0]!.replaceAll('staff-only', 'NAME')).toBe(errors[1]!.replaceAll('no-such-skill', 'NAME'));

    const staff = await collect(
      agent.run({ userId: 'staff', sessionId: 's', message: 'internal please', context: { roles: ['staff'] } }),
    );
    expect(skillEnum(calls[2]!)).toEqual(['poetry', 'staff-only']);
    expect(catalogOf(calls[2]!)).toContain('staff-only');
    expect(staff.find((event) => event.type === 'tool-result')).toMatchObject({ output: 'loaded: staff-only' });
  });

  it('validates its options and run arguments by name', () => {
    const { model } = createScriptedModel([]);
    expect(() => createSkillAgent({ model, repository, maxSteps: 0 })).toThrow(SkillboxConfigError);
    expect(() => createSkillAgent({ model, repository: {} as never })).toThrow(
      /"repository" must be a SkillRepository/,
    );
    const agent = createSkillAgent({ model, repository });
    return expect(collect(agent.run({ userId: '', sessionId: 's', message: 'x' }))).rejects.toThrow(/userId/);
  });

  it('streams skill_read results as a stub; the model and the stored transcript keep the text it read', async () => {
    const files = createMemorySkillRepository([
      { name: 'poetry', description: 'Write poems.', body, files: { 'forms/haiku.md': 'HAIKU-FILE: 5-7-5' } },
    ]);
    const { model, calls } = createScriptedModel([
      {
        toolCalls: [
          { name: 'skill_read', input: { skill: 'poetry' }, id: 'r1' },
          { name: 'skill_read', input: { skill: 'poetry', path: 'forms/haiku.md' }, id: 'r2' },
        ],
      },
      { text: 'read both' },
    ]);
    const sessions = createMemorySessionStore();
    const agent = createSkillAgent({ model, repository: files, sessions });
    const events = await collect(agent.run({ userId: 'u', sessionId: 's', message: 'read it' }));
    const reads = events.filter((event) => event.type === 'tool-result');
    expect(reads.map((event) => (event as { output?: unknown }).output)).toEqual([
      expect.stringMatching(/^read: poetry \(\d+ chars\)$/),
      'read: poetry/forms/haiku.md (17 chars)',
    ]);
    expect(JSON.stringify(events)).not.toContain('SECRET-BODY');
    expect(JSON.stringify(events)).not.toContain('HAIKU-FILE');
    expect(JSON.stringify(calls[1]?.prompt)).toContain('HAIKU-FILE');
    const stored = await sessions.getSession({ userId: 'u', sessionId: 's' });
    expect(JSON.stringify(stored?.events)).toContain('HAIKU-FILE');
  });

  it('a turn that fails on step 3 stores its finished steps, their state and an error event; a retry sees that history', async () => {
    const { model, calls } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'poetry' }, id: 'l1' }] },
      { toolCalls: [{ name: 'count_syllables', input: { text: 'old pond' }, id: 'c1' }] },
      // no third step scripted: the third model call throws, as a provider error would
    ]);
    const sessions = createMemorySessionStore();
    const key = { userId: 'u', sessionId: 'fails' };
    const agent = createSkillAgent({ model, repository, sessions, toolPool, loadMode: 'session' });
    const seen: SkillAgentEvent[] = [];
    await expect(
      (async () => {
        for await (const event of agent.run({ ...key, message: 'a poem please' })) seen.push(event);
      })(),
    ).rejects.toThrow(/no step scripted for model call 3/);
    expect(seen.filter((event) => event.type === 'step-finish')).toHaveLength(2);

    const stored = await sessions.getSession(key);
    expect(stored?.events.map((event) => `${event.author}:${event.type}`)).toEqual([
      'user:message',
      'assistant:message',
      'assistant:message',
      'assistant:message',
      'assistant:message',
      'assistant:state',
      'assistant:error',
    ]);
    expect(stored?.events.at(-1)?.content).toEqual({
      message: expect.stringContaining('no step scripted for model call 3'),
      steps: 2,
    });
    expect(stored?.state[loadedKey('assistant', 'poetry')]).toBe('1');
    expect(stored?.events[4]?.usage).toMatchObject({ inputTokens: 20, outputTokens: 10 });

    // The retry's request carries the failed turn's finished steps, in order, then the new message.
    const second = createScriptedModel([{ text: 'An old pond' }]);
    const retry = createSkillAgent({
      model: second.model,
      repository,
      sessions,
      toolPool,
      loadMode: 'session',
    });
    const done = (await collect(retry.run({ ...key, message: 'try again' }))).at(-1);
    expect(done).toMatchObject({ type: 'done', sessionVersion: 9 });
    expect(calls).toHaveLength(3);
    const replayed = second.calls[0]!.prompt.filter((message) => message.role !== 'system');
    expect(replayed.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'user']);
    expect(JSON.stringify(replayed[3])).toContain('"toolCallId":"c1"');
    expect(JSON.stringify(replayed[5])).toContain('try again');
  });

  it('an aborted turn stores what it finished with an error event, and rethrows', async () => {
    const controller = new AbortController();
    const aborting = {
      ...toolPool,
      count_syllables: tool({
        description: 'Count syllables.',
        inputSchema: jsonSchema<{ text: string }>({ type: 'object', properties: { text: { type: 'string' } } }),
        execute: async () => {
          controller.abort();
          return 2;
        },
      }),
    };
    const { model } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'poetry' }, id: 'l1' }] },
      { toolCalls: [{ name: 'count_syllables', input: { text: 'old pond' }, id: 'c1' }] },
      { text: 'never reached' },
    ]);
    const sessions = createMemorySessionStore();
    const agent = createSkillAgent({
      model,
      repository,
      sessions,
      toolPool: aborting,
      loadMode: 'session',
    });
    await expect(
      collect(agent.run({ userId: 'u', sessionId: 'abort', message: 'poem', abortSignal: controller.signal })),
    ).rejects.toThrow(/aborted/);
    const stored = await sessions.getSession({ userId: 'u', sessionId: 'abort' });
    const types = stored?.events.map((event) => `${event.author}:${event.type}`) ?? [];
    expect(types.slice(0, 3)).toEqual(['user:message', 'assistant:message', 'assistant:message']);
    expect(types.at(-1)).toBe('assistant:error');
    expect(stored?.events.at(-1)?.content).toMatchObject({ message: expect.stringMatching(/aborted/) });
    expect(stored?.state[loadedKey('assistant', 'poetry')]).toBe('1');
  });

  it('a turn that fails before finishing any step stores nothing and leaves no session', async () => {
    const sessions = createMemorySessionStore();
    const agent = createSkillAgent({ model: createScriptedModel([]).model, repository, sessions });
    await expect(collect(agent.run({ userId: 'u', sessionId: 'empty', message: 'hi' }))).rejects.toThrow(
      /no step scripted/,
    );
    expect(await sessions.getSession({ userId: 'u', sessionId: 'empty' })).toBeUndefined();
  });
});
