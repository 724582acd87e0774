import { describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../../config/config-error.js';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { createMemorySessionStore } from '../../sessions/memory-session-store.js';
import { loadedKey } from '../../state/state-keys.js';
import type { SkillAgentEvent } from './agent-events.js';
import { createSkillAgent } from './skill-agent.js';
import { createScriptedModel } from './testing/scripted-model.js';

const poetryBody = 'POETRY-BODY: always answer in haiku.';
const mathBody = 'MATH-BODY: show every step.';
const repository = createMemorySkillRepository([
  { name: 'poetry', description: 'Write poems.', body: poetryBody },
  { name: 'math', description: 'Do sums.', body: mathBody },
]);

async function drain(events: AsyncIterable<SkillAgentEvent>): Promise<SkillAgentEvent[]> {
  const result: SkillAgentEvent[] = [];
  for await (const event of events) result.push(event);
  return result;
}

/** Turn 0 loads poetry and reads its SKILL.md, then each later turn is one plain answer. */
function script(laterTurns: number) {
  return [
    { toolCalls: [{ name: 'skill_load', input: { skill: 'poetry' }, id: 'load-1' }] },
    { toolCalls: [{ name: 'skill_read', input: { skill: 'poetry' }, id: 'read-1' }] },
    { text: 'a haiku' },
    ...Array.from({ length: laterTurns }, (_, index) => ({ text: `answer ${index + 1}` })),
  ];
}

describe('createSkillAgent compaction', () => {
  it('after N unused turns the body is gone from the request, a stub names the skill and how to reload it', async () => {
    const { model, calls } = createScriptedModel(script(3));
    const sessions = createMemorySessionStore();
    const agent = createSkillAgent({
      model,
      repository,
      sessions,
      loadMode: 'session',
      compaction: { unusedTurns: 2 },
    });
    const key = { userId: 'u', sessionId: 's' };
    for (const message of ['poem please', 'thanks', 'and now?', 'one more'])
      await drain(agent.run({ ...key, message }));

    const prompts = calls.map((call) => JSON.stringify(call.prompt));
    // Turn 1 (1 unused turn): the skill is still loaded, its body materialised and the read kept.
    expect(prompts[3]).toContain('POETRY-BODY');
    // Turn 2: only turn 1 went by without the skill.
    expect(prompts[4]).toContain('POETRY-BODY');
    // Turn 3: turns 1 and 2 did not name the skill: gone, both the materialised and the read copy.
    expect(prompts[5]).not.toContain('POETRY-BODY');
    expect(prompts[5]).toContain(
      '[compacted] skill \\"poetry\\" is no longer loaded; call skill_load with {\\"skill\\":\\"poetry\\"} to load it again.',
    );
    expect(prompts[5]).toContain('[compacted] skill \\"poetry\\" SKILL.md');
    // Unloaded in the stored state; the stored history keeps every message as it was.
    const stored = await sessions.getSession(key);
    expect(stored?.state[loadedKey('assistant', 'poetry')]).toBeUndefined();
    expect(JSON.stringify(stored?.events)).toContain('POETRY-BODY');
  });

  it('keeps earlier messages byte-identical from one turn to the next once compacted', async () => {
    const { model, calls } = createScriptedModel(script(4));
    const agent = createSkillAgent({
      model,
      repository,
      loadMode: 'session',
      compaction: { unusedTurns: 1 },
    });
    for (const message of ['poem please', 'a', 'b', 'c', 'd'])
      await drain(agent.run({ userId: 'u', sessionId: 's', message }));
    // Compacted from turn 2 (call 4) on, after one whole turn without the skill.
    expect(JSON.stringify(calls[3]?.prompt)).toContain('POETRY-BODY');
    for (const index of [4, 5, 6]) expect(JSON.stringify(calls[index]?.prompt)).not.toContain('POETRY-BODY');
    const messagesOf = (index: number) => (calls[index]?.prompt ?? []).filter((message) => message.role !== 'system');
    // From the turn that compacted on, each request starts with the whole previous one.
    for (const index of [5, 6]) {
      const previous = messagesOf(index - 1);
      expect(JSON.stringify(messagesOf(index).slice(0, previous.length))).toBe(JSON.stringify(previous));
    }
  });

  it('lets the model load a compacted skill again and use it', async () => {
    const { model, calls } = createScriptedModel([
      ...script(2),
      { toolCalls: [{ name: 'skill_load', input: { skill: 'poetry' }, id: 'load-2' }] },
      { text: 'another haiku' },
    ]);
    const agent = createSkillAgent({
      model,
      repository,
      loadMode: 'session',
      compaction: { unusedTurns: 1 },
    });
    for (const message of ['poem please', 'a', 'b', 'poem again'])
      await drain(agent.run({ userId: 'u', sessionId: 's', message }));
    const last = calls.at(-1)?.prompt ?? [];
    const text = JSON.stringify(last);
    // Once, in the new load result; the old results stay stubs.
    expect(text.split('POETRY-BODY').length - 1).toBe(1);
    expect(text).toContain('is no longer loaded');
  });

  it('compacts every turn before the last once the history passes the token budget', async () => {
    const { model, calls } = createScriptedModel([
      { toolCalls: [{ name: 'skill_read', input: { skill: 'math' }, id: 'read-math' }] },
      { text: 'sum done' },
      { toolCalls: [{ name: 'skill_read', input: { skill: 'poetry' }, id: 'read-poetry' }] },
      { text: 'poem done' },
      { text: 'bye' },
    ]);
    const agent = createSkillAgent({
      model,
      repository,
      compaction: { historyTokenBudget: 20 },
    });
    for (const message of ['sum please', 'poem please', 'bye'])
      await drain(agent.run({ userId: 'u', sessionId: 's', message }));
    const last = JSON.stringify(calls.at(-1)?.prompt);
    // Turn 0's read is compacted; turn 1, the last whole turn, is kept.
    expect(last).not.toContain('MATH-BODY');
    expect(last).toContain('[compacted] skill \\"math\\" SKILL.md');
    expect(last).toContain('POETRY-BODY');
  });

  it('is off by default and refuses a policy that says nothing or is misspelled', () => {
    const { model } = createScriptedModel([]);
    expect(() => createSkillAgent({ model, repository, compaction: {} })).toThrow(SkillboxConfigError);
    expect(() => createSkillAgent({ model, repository, compaction: { unusedTurns: 0 } })).toThrow(
      /compaction\.unusedTurns/,
    );
    expect(() => createSkillAgent({ model, repository, compaction: { unusedTurn: 2 } as never })).toThrow(/compaction/);
  });
});
