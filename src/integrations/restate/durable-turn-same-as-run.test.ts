import { jsonSchema, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { createMemorySessionStore } from '../../sessions/memory-session-store.js';
import { createMemoryTurnEventFeed } from '../../sessions/memory-turn-event-feed.js';
import type { SkillAgentEvent } from '../ai-sdk/agent-events.js';
import { buildAgentSetup, createSkillAgent, type SkillAgentOptions } from '../ai-sdk/skill-agent.js';
import { createScriptedModel, type ScriptedStep } from '../ai-sdk/testing/scripted-model.js';
import { runDurableTurn } from './durable-turn.js';
import { createMemoryTurnJournal } from './testing/memory-turn-journal.js';

// The same scripted conversations through SkillAgent.run and through the durable turn: the events a
// client gets and the session that is stored must be the same, whatever the agent's options.

const repository = createMemorySkillRepository([
  { name: 'poetry', description: 'Write poems.', body: 'POETRY-BODY: answer in haiku.', tools: ['count_syllables'] },
  { name: 'maths', description: 'Arithmetic.', body: 'MATHS-BODY: show your working.' },
]);
const toolPool = {
  count_syllables: tool({
    description: 'Count syllables.',
    inputSchema: jsonSchema<{ text: string }>({ type: 'object', properties: { text: { type: 'string' } } }),
    execute: async ({ text }) => text.split(/\s+/).length,
  }),
};
const key = { appName: 'default', userId: 'u', sessionId: 's' };

/** Two turns: the first loads poetry and calls its pool tool, the second loads maths and answers. */
const script: ScriptedStep[] = [
  { toolCalls: [{ name: 'skill_load', input: { skill: 'poetry' }, id: 'l1' }] },
  { toolCalls: [{ name: 'count_syllables', input: { text: 'old silent pond' }, id: 'c1' }] },
  { text: 'An old silent pond' },
  { toolCalls: [{ name: 'skill_load', input: { skill: 'maths' }, id: 'l2' }] },
  { toolCalls: [{ name: 'skill_read', input: { skill: 'poetry' }, id: 'r1' }] },
  { text: 'Two plus two is four.' },
];

const cases: Array<[string, Partial<SkillAgentOptions>]> = [
  ['load mode turn (default)', {}],
  ['load mode once', { loadMode: 'once' }],
  ['load mode session', { loadMode: 'session' }],
  ['compaction after one unused turn', { compaction: { unusedTurns: 1 } }],
];

describe('a durable turn behaves as SkillAgent.run', () => {
  it.each(cases)('%s: same events, same stored session, same model requests', async (_, options) => {
    const plain = createScriptedModel(script);
    const plainSessions = createMemorySessionStore();
    const agent = createSkillAgent({ model: plain.model, repository, toolPool, sessions: plainSessions, ...options });
    const runEvents: SkillAgentEvent[][] = [];
    for (const message of ['a poem', 'a sum']) {
      const events: SkillAgentEvent[] = [];
      for await (const event of agent.run({ ...key, message })) events.push(event);
      runEvents.push(events);
    }

    const durable = createScriptedModel(script);
    const durableSessions = createMemorySessionStore();
    const setup = buildAgentSetup('test', {
      model: durable.model,
      repository,
      toolPool,
      sessions: durableSessions,
      ...options,
    });
    const feed = createMemoryTurnEventFeed();
    const feedEvents: unknown[][] = [];
    for (const [index, message] of ['a poem', 'a sum'].entries()) {
      const journal = createMemoryTurnJournal(`inv_${index}`).attempt();
      await runDurableTurn({ setup, journal, feed, key, input: { message } });
      const events: unknown[] = [];
      for await (const event of feed.read({ ...key, turnId: `inv_${index}` })) events.push(event.data);
      feedEvents.push(events);
    }

    expect(feedEvents).toEqual(runEvents);
    expect(durable.calls.map((call) => call.prompt)).toEqual(plain.calls.map((call) => call.prompt));
    const shape = async (store: typeof plainSessions) =>
      (await store.getSession(key))?.events.map(({ type, author, content, stateDelta, version }) => ({
        type,
        author,
        content,
        stateDelta,
        version,
      }));
    expect(await shape(durableSessions)).toEqual(await shape(plainSessions));
    expect((await durableSessions.getSession(key))?.state).toEqual((await plainSessions.getSession(key))?.state);
  });
});
