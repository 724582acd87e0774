import { jsonSchema, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { createMemorySessionStore } from '../../sessions/memory-session-store.js';
import { createMemoryTurnEventFeed } from '../../sessions/memory-turn-event-feed.js';
import type { FeedEvent, TurnEventFeed } from '../../sessions/turn-event-feed.js';
import { loadedKey } from '../../state/state-keys.js';
import type { SkillAgentEvent } from '../ai-sdk/agent-events.js';
import { buildAgentSetup, createSkillAgent, type SkillAgentOptions } from '../ai-sdk/skill-agent.js';
import { createScriptedModel, type ScriptedStep } from '../ai-sdk/testing/scripted-model.js';
import { runDurableTurn } from './durable-turn.js';
import { lostRunMessage, mayRunLostCallAgain } from './journaled-tool-calls.js';
import { createMemoryTurnJournal } from './testing/memory-turn-journal.js';

const repository = createMemorySkillRepository([
  { name: 'greeting', description: 'Greets people.', body: 'GREETING-BODY: say hello in French.' },
]);
const key = { appName: 'default', userId: 'anna', sessionId: 's1' };

/** A turn that loads a skill, calls a tool with an effect (a counter), then answers. */
function turnScript(extra: ScriptedStep[] = []): ScriptedStep[] {
  return [
    { toolCalls: [{ name: 'skill_load', input: { skill: 'greeting' }, id: 'load-1' }] },
    { toolCalls: [{ name: 'append', input: { line: 'x' }, id: 'append-1' }] },
    ...extra,
    { text: 'Bonjour!' },
  ];
}

function agentWith(steps: ScriptedStep[], options: Partial<SkillAgentOptions> = {}) {
  const scripted = createScriptedModel(steps);
  const effects: string[] = [];
  const sessions = createMemorySessionStore();
  const append = tool({
    description: 'Appends a line (an effect outside the session).',
    inputSchema: jsonSchema<{ line: string }>({ type: 'object', properties: { line: { type: 'string' } } }),
    execute: async ({ line }) => {
      effects.push(line);
      return `appended ${effects.length}`;
    },
  });
  const setup = buildAgentSetup('test', {
    model: scripted.model,
    repository,
    sessions,
    tools: { append },
    ...options,
  });
  return { setup, scripted, effects, sessions };
}

async function feedOf(feed: TurnEventFeed, turnId: string): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  for await (const event of feed.read({ ...key, turnId })) events.push(event);
  return events;
}

describe('runDurableTurn (in-memory journal)', () => {
  it('runs the same loop as SkillAgent.run: loads, calls a tool, stores the turn with ids, feeds every event', async () => {
    const { setup, scripted, effects, sessions } = agentWith(turnScript());
    const feed = createMemoryTurnEventFeed();
    const journal = createMemoryTurnJournal('inv_1');
    const result = await runDurableTurn({ setup, journal: journal.attempt(), feed, key, input: { message: 'hi' } });
    expect(result).toMatchObject({ turnId: 'inv_1', text: 'Bonjour!', steps: 3 });
    expect(effects).toEqual(['x']);
    expect(scripted.calls).toHaveLength(3);
    const session = await sessions.getSession(key);
    expect(session?.events.map((event) => event.id)).toEqual(session?.events.map((_, index) => `inv_1/${index}`));
    expect(session?.state[loadedKey('assistant', 'greeting')]).toBeDefined();
    const events = await feedOf(feed, 'inv_1');
    // The same events, in the same order, as SkillAgent.run streams for the same script.
    const plain = agentWith(turnScript());
    const agent = createSkillAgent({
      model: plain.scripted.model,
      repository,
      sessions: plain.sessions,
      tools: plain.setup.customTools,
    });
    const runEvents: SkillAgentEvent[] = [];
    for await (const event of agent.run({ ...key, message: 'hi' })) runEvents.push(event);
    expect(events.map((event) => event.data)).toEqual(runEvents);
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    expect(journal.names).toContain('tool append-1');
  });

  it('a second turn reads the first from the store', async () => {
    const { setup, scripted, sessions } = agentWith([...turnScript(), { text: 'Encore bonjour.' }]);
    const feed = createMemoryTurnEventFeed();
    await runDurableTurn({
      setup,
      journal: createMemoryTurnJournal('inv_a').attempt(),
      feed,
      key,
      input: { message: 'hi' },
    });
    const second = await runDurableTurn({
      setup,
      journal: createMemoryTurnJournal('inv_b').attempt(),
      feed,
      key,
      input: { message: 'again' },
    });
    expect(second.text).toBe('Encore bonjour.');
    const prompt = JSON.stringify(scripted.calls[3]?.prompt);
    expect(prompt).toContain('Bonjour!');
    expect(prompt).toContain('again');
    const stored = await sessions.getSession(key);
    expect(stored?.events.filter((event) => event.id?.startsWith('inv_b/')).length).toBeGreaterThan(0);
  });

  it('replays finished steps and tool calls from the journal: no model step requested twice, no tool run twice', async () => {
    const { setup, scripted, effects, sessions } = agentWith(turnScript());
    const feed = createMemoryTurnEventFeed();
    const journal = createMemoryTurnJournal('inv_2');
    const first = journal.attempt({ entry: 'model step 2', when: 'before-action' });
    void runDurableTurn({ setup, journal: first, feed, key, input: { message: 'hi' } });
    await first.stopped;
    expect(scripted.calls).toHaveLength(2);
    const result = await runDurableTurn({ setup, journal: journal.attempt(), feed, key, input: { message: 'hi' } });
    expect(result.text).toBe('Bonjour!');
    expect(scripted.calls).toHaveLength(3);
    expect(effects).toEqual(['x']);
    // The replayed skill_load put its journaled state change back: the turn stored it.
    const session = await sessions.getSession(key);
    expect(session?.state[loadedKey('assistant', 'greeting')]).toBeDefined();
    const events = await feedOf(feed, 'inv_2');
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    expect(events.filter((event) => (event.data as { type: string }).type === 'step-finish')).toHaveLength(3);
  });

  it('a tool call lost after it ran is not repeated: the model is told it was lost', async () => {
    const { setup, scripted, effects } = agentWith(turnScript());
    const feed = createMemoryTurnEventFeed();
    const journal = createMemoryTurnJournal('inv_3');
    const first = journal.attempt({ entry: 'tool append-1', when: 'after-action' });
    void runDurableTurn({ setup, journal: first, feed, key, input: { message: 'hi' } });
    await first.stopped;
    expect(effects).toEqual(['x']);
    await runDurableTurn({ setup, journal: journal.attempt(), feed, key, input: { message: 'hi' } });
    expect(effects).toEqual(['x']);
    expect(JSON.stringify(scripted.calls[2]?.prompt)).toContain(lostRunMessage);
    const results = (await feedOf(feed, 'inv_3')).filter(
      (event) => (event.data as { type: string }).type === 'tool-result',
    );
    expect(results.map((event) => event.data)).toContainEqual(expect.objectContaining({ error: lostRunMessage }));
  });

  it('an attempt that is over stops and stores nothing; the next attempt reports its call as lost and stores the turn once', async () => {
    const { setup, effects, sessions } = agentWith(turnScript());
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const wait = tool({
      description: 'Appends a line after a wait.',
      inputSchema: jsonSchema<{ line: string }>({ type: 'object', properties: { line: { type: 'string' } } }),
      execute: async ({ line }) => {
        effects.push(line);
        await blocked;
        return 'appended';
      },
    });
    const slowSetup = { ...setup, customTools: { append: wait } };
    const feed = createMemoryTurnEventFeed();
    const journal = createMemoryTurnJournal('inv_7');
    const ended = new AbortController();
    const first = runDurableTurn({
      setup: slowSetup,
      journal: journal.attempt(undefined, { attemptEnded: ended.signal }),
      feed,
      key,
      input: { message: 'hi' },
    });
    while (effects.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    ended.abort(new Error('the server gave the turn to another attempt'));
    release();
    // ai 7 ends the stale attempt at once; ai 6 lets the running tool finish first. Either way it
    // must not finish the turn: its journal is closed.
    const settled = new Promise((resolve) => setTimeout(() => resolve('pending'), 300));
    expect(
      await Promise.race([
        first.then(
          () => 'finished',
          () => 'rejected',
        ),
        settled,
      ]),
    ).not.toBe('finished');
    const result = await runDurableTurn({
      setup: slowSetup,
      journal: journal.attempt(),
      feed,
      key,
      input: { message: 'hi' },
    });
    expect(result.text).toBe('Bonjour!');
    expect(effects).toEqual(['x']);
    const session = await sessions.getSession(key);
    expect(session?.events.every((event) => event.id?.startsWith('inv_7/'))).toBe(true);
    expect(session?.events.some((event) => event.type === 'error')).toBe(false);
    const types = (await feedOf(feed, 'inv_7')).map((event) => (event.data as { type: string }).type);
    expect(types).not.toContain('turn-failed');
  });

  it('a lost call of a tool named retry-safe runs again', async () => {
    const { setup, effects } = agentWith(turnScript());
    const feed = createMemoryTurnEventFeed();
    const journal = createMemoryTurnJournal('inv_4');
    const first = journal.attempt({ entry: 'tool append-1', when: 'after-action' });
    void runDurableTurn({ setup, journal: first, feed, key, input: { message: 'hi' }, retrySafeTools: ['append'] });
    await first.stopped;
    await runDurableTurn({
      setup,
      journal: journal.attempt(),
      feed,
      key,
      input: { message: 'hi' },
      retrySafeTools: ['append'],
    });
    expect(effects).toEqual(['x', 'x']);
  });

  it('a step cut off before its journal entry is requested again, after a step-restarted event', async () => {
    const { setup, scripted } = agentWith([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'greeting' }, id: 'load-1' }] },
      { text: 'Bonj' },
      { text: 'Bonjour!' },
    ]);
    const feed = createMemoryTurnEventFeed();
    const journal = createMemoryTurnJournal('inv_5');
    const first = journal.attempt({ entry: 'model step 1', when: 'after-action' });
    void runDurableTurn({ setup, journal: first, feed, key, input: { message: 'hi' } });
    await first.stopped;
    const result = await runDurableTurn({ setup, journal: journal.attempt(), feed, key, input: { message: 'hi' } });
    expect(result.text).toBe('Bonjour!');
    expect(scripted.calls).toHaveLength(3);
    const events = (await feedOf(feed, 'inv_5')).map((event) => event.data as { type: string; text?: string });
    const restarted = events.findIndex((event) => event.type === 'step-restarted');
    expect(restarted).toBeGreaterThan(0);
    expect(
      events
        .slice(0, restarted)
        .map((event) => event.text)
        .join(''),
    ).toContain('Bonj');
    expect(
      events
        .slice(restarted)
        .filter((event) => event.type === 'text-delta')
        .map((event) => event.text)
        .join(''),
    ).toBe('Bonjour!');
  });

  it('an approval waits on an awakeable that a later attempt receives', async () => {
    const { setup, effects, scripted } = agentWith(turnScript(), { approval: { tools: ['skill_load'] } });
    const feed = createMemoryTurnEventFeed();
    const journal = createMemoryTurnJournal('inv_6');
    void runDurableTurn({ setup, journal: journal.attempt(), feed, key, input: { message: 'hi' } });
    let approvalId: string | undefined;
    for await (const event of feed.read({ ...key, turnId: 'inv_6' })) {
      const data = event.data as { type: string; approvalId?: string };
      if (data.type === 'approval-requested') {
        approvalId = data.approvalId;
        break;
      }
    }
    expect(scripted.calls).toHaveLength(1);
    journal.resolve(approvalId!, 'allow-once');
    const result = await runDurableTurn({ setup, journal: journal.attempt(), feed, key, input: { message: 'hi' } });
    expect(result.text).toBe('Bonjour!');
    expect(effects).toEqual(['x']);
  });
});

describe('mayRunLostCallAgain', () => {
  const skills = createMemorySkillRepository([
    { name: 'safe', description: 'Idempotent.', body: 'b', metadata: { 'skillbox-retry': 'safe' } },
    { name: 'effects', description: 'Sends mail.', body: 'b' },
  ]);
  const rule = { repository: skills, retrySafeTools: ['lookup'], runLedger: false };
  const call = (toolName: string, input: unknown = {}) => ({ toolCallId: 'c', toolName, input });

  it('re-runs disclosure tools, skill_run of a skill declaring skillbox-retry: safe, and tools named retry-safe', async () => {
    expect(await mayRunLostCallAgain(call('skill_load', { skill: 'effects' }), rule)).toBe(true);
    expect(await mayRunLostCallAgain(call('skill_read'), rule)).toBe(true);
    expect(await mayRunLostCallAgain(call('skill_run', { skill: 'safe', command: 'x' }), rule)).toBe(true);
    expect(await mayRunLostCallAgain(call('lookup'), rule)).toBe(true);
  });

  it('does not re-run anything else', async () => {
    expect(await mayRunLostCallAgain(call('skill_run', { skill: 'effects', command: 'x' }), rule)).toBe(false);
    expect(await mayRunLostCallAgain(call('skill_run', { skill: 'missing', command: 'x' }), rule)).toBe(false);
    expect(await mayRunLostCallAgain(call('workspace_exec', { command: 'x' }), rule)).toBe(false);
    expect(await mayRunLostCallAgain(call('send_mail'), rule)).toBe(false);
  });

  it('asks a durable run ledger about a lost command instead of deciding alone', async () => {
    const withLedger = { ...rule, runLedger: true };
    expect(await mayRunLostCallAgain(call('skill_run', { skill: 'effects', command: 'x' }), withLedger)).toBe(true);
    expect(await mayRunLostCallAgain(call('workspace_exec', { command: 'x' }), withLedger)).toBe(true);
    expect(await mayRunLostCallAgain(call('send_mail'), withLedger)).toBe(false);
  });
});
