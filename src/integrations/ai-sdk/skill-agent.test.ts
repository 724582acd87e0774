import { describe, expect, it } from 'vitest';
import { jsonSchema, tool } from 'ai';
import { loadedKey } from '../../disclosure/state-keys.js';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { createMemorySessionStore } from '../../sessions/memory-session-store.js';
import type { SkillAgentEvent } from './agent-events.js';
import { SkillAgentConfigError } from './errors.js';
import { createSkillAgent } from './skill-agent.js';
import { createScriptedModel } from './testing/scripted-model.js';

const body = 'SECRET-BODY: always answer in haiku.';
const repository = createMemorySkillRepository([
  { name: 'poetry', description: 'Write poems.', body, tools: ['count_syllables'] },
  { name: 'staff-only', description: 'Internal.', body: 'internal' },
]);
const toolPool = {
  count_syllables: tool({ description: 'Count syllables.', inputSchema: jsonSchema<{ text: string }>({ type: 'object', properties: { text: { type: 'string' } } }), execute: async ({ text }) => text.split(/\s+/).length }),
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
    const agent = createSkillAgent({ model, skills: repository, sessions, toolPool, loadMode: 'session', instructions: 'Be brief.' });
    const events = await collect(agent.run({ userId: 'u', sessionId: 's', message: 'a poem please' }));

    expect(events.map((event) => event.type)).toEqual([
      'tool-call', 'state-change', 'tool-result', 'step-finish',
      'tool-call', 'tool-result', 'step-finish',
      'text-delta', 'text-delta', 'step-finish', 'done',
    ]);
    expect(events[2]).toEqual({ type: 'tool-result', stepNumber: 0, toolCallId: 'l1', toolName: 'skill_load', output: 'loaded: poetry' });
    expect(events[3]).toMatchObject({ type: 'step-finish', usage: { inputTokens: 100, outputTokens: 7, totalTokens: 107 }, activeTools: expect.not.arrayContaining(['count_syllables']) });
    expect(events[6]).toMatchObject({ type: 'step-finish', activeTools: expect.arrayContaining(['count_syllables']) });
    expect(events.at(-1)).toMatchObject({ type: 'done', text: 'An old silent pond', steps: 3, sessionVersion: 7 });
    expect(JSON.stringify(events)).not.toContain('SECRET-BODY');
    // The model, unlike the client, saw the body in the skill_load result.
    expect(JSON.stringify(calls[1]?.prompt)).toContain('SECRET-BODY');

    const stored = await sessions.getSession({ userId: 'u', sessionId: 's' });
    expect(stored?.events.map((event) => `${event.author}:${event.type}`)).toEqual([
      'user:message', 'assistant:message', 'assistant:message', 'assistant:message', 'assistant:message', 'assistant:message', 'assistant:state',
    ]);
    expect(JSON.stringify(stored?.events)).not.toContain('SECRET-BODY');
    expect(stored?.state[loadedKey('assistant', 'poetry')]).toBe('1');
  });

  it('carries history and session-mode state into the next turn; turn mode unloads at the next turn', async () => {
    for (const loadMode of ['session', 'turn'] as const) {
      const { model, calls } = createScriptedModel([{ toolCalls: [{ name: 'skill_load', input: { skill: 'poetry' } }] }, { text: 'one' }, { text: 'two' }]);
      const agent = createSkillAgent({ model, skills: repository, toolPool, loadMode });
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
    const agent = createSkillAgent({ model, skills: repository, sessions });
    const stream = agent.run({ ...key, message: 'hi' })[Symbol.asyncIterator]();
    await stream.next(); // the turn has read the session at version 0 and is streaming
    await sessions.appendEvents(key, [{ author: 'other', type: 'note', stateDelta: { other: 'x' } }], { expectedVersion: 0 });
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
    const agent = createSkillAgent({ model, skills: repository, sessions, filter: (summary, context) => summary.name !== 'staff-only' || context.roles?.includes('staff') === true });
    await expect(collect(agent.run({ userId: 'u', sessionId: 's', message: 'x', skillLoads: [{ name: 'staff-only' }] }))).rejects.toThrow(/staff-only/);
    expect(calls).toHaveLength(0);
    expect((await sessions.getSession({ userId: 'u', sessionId: 's' }))?.version).toBe(0);
  });

  it("gives each run's model an enum of exactly the skills its context can see; a hidden skill is refused like an unknown one", async () => {
    const { model, calls } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'staff-only' }, id: 'hidden' }, { name: 'skill_load', input: { skill: 'no-such-skill' }, id: 'unknown' }] },
      { text: 'cannot' },
      { toolCalls: [{ name: 'skill_load', input: { skill: 'staff-only' }, id: 'visible' }] },
      { text: 'loaded' },
    ]);
    const agent = createSkillAgent({ model, skills: repository, toolPool, filter: (summary, context) => summary.name !== 'staff-only' || context.roles?.includes('staff') === true });
    const skillEnum = (call: (typeof calls)[number]) => {
      const load = call.tools?.find((entry) => entry.name === 'skill_load');
      if (load?.type !== 'function') throw new Error('skill_load was not sent as a function tool');
      return (load.inputSchema as { properties: { skill: { enum?: string[] } } }).properties.skill.enum;
    };
    const catalogOf = (call: (typeof calls)[number]) => JSON.stringify(call.prompt.filter((message) => message.role === 'system'));

    const guest = await collect(agent.run({ userId: 'guest', sessionId: 's', message: 'internal please' }));
    expect(skillEnum(calls[0]!)).toEqual(['poetry']);
    expect(catalogOf(calls[0]!)).not.toContain('staff-only');
    const errors = guest.filter((event) => event.type === 'tool-result').map((event) => (event as { error?: string }).error);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toBeDefined();
    expect(errors[0]!.replaceAll('staff-only', 'NAME')).toBe(errors[1]!.replaceAll('no-such-skill', 'NAME'));

    const staff = await collect(agent.run({ userId: 'staff', sessionId: 's', message: 'internal please', context: { roles: ['staff'] } }));
    expect(skillEnum(calls[2]!)).toEqual(['poetry', 'staff-only']);
    expect(catalogOf(calls[2]!)).toContain('staff-only');
    expect(staff.find((event) => event.type === 'tool-result')).toMatchObject({ output: 'loaded: staff-only' });
  });

  it('validates its options and run arguments by name', () => {
    const { model } = createScriptedModel([]);
    expect(() => createSkillAgent({ model, skills: repository, maxSteps: 0 })).toThrow(SkillAgentConfigError);
    expect(() => createSkillAgent({ model, skills: {} as never })).toThrow(/skills/);
    const agent = createSkillAgent({ model, skills: repository });
    return expect(collect(agent.run({ userId: '', sessionId: 's', message: 'x' }))).rejects.toThrow(/userId/);
  });

  it('streams skill_read results as a stub; the model and the stored transcript keep the text it read', async () => {
    const files = createMemorySkillRepository([{ name: 'poetry', description: 'Write poems.', body, files: { 'forms/haiku.md': 'HAIKU-FILE: 5-7-5' } }]);
    const { model, calls } = createScriptedModel([
      { toolCalls: [{ name: 'skill_read', input: { skill: 'poetry' }, id: 'r1' }, { name: 'skill_read', input: { skill: 'poetry', path: 'forms/haiku.md' }, id: 'r2' }] },
      { text: 'read both' },
    ]);
    const sessions = createMemorySessionStore();
    const agent = createSkillAgent({ model, skills: files, sessions });
    const events = await collect(agent.run({ userId: 'u', sessionId: 's', message: 'read it' }));
    const reads = events.filter((event) => event.type === 'tool-result');
    expect(reads.map((event) => (event as { output?: unknown }).output)).toEqual([expect.stringMatching(/^read: poetry \(\d+ chars\)$/), 'read: poetry/forms/haiku.md (17 chars)']);
    expect(JSON.stringify(events)).not.toContain('SECRET-BODY');
    expect(JSON.stringify(events)).not.toContain('HAIKU-FILE');
    expect(JSON.stringify(calls[1]?.prompt)).toContain('HAIKU-FILE');
    const stored = await sessions.getSession({ userId: 'u', sessionId: 's' });
    expect(JSON.stringify(stored?.events)).toContain('HAIKU-FILE');
  });
});
