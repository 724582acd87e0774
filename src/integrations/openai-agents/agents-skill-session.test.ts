import type { AgentInputItem } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../../sessions/memory-session-store.js';
import { AgentsSkillSession } from './agents-skill-session.js';

const key = { userId: 'ada', sessionId: 's1' };
const user = (text: string): AgentInputItem => ({ type: 'message', role: 'user', content: text });
const assistant = (text: string): AgentInputItem => ({
  type: 'message',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text }],
});

describe('AgentsSkillSession (the SDK Session over a skillbox store)', () => {
  it('keeps items in order across session objects, pops the latest, and limits to the most recent', async () => {
    const store = createMemorySessionStore();
    const session = await AgentsSkillSession.open(store, key, 'assistant');
    expect(await session.getSessionId()).toBe('s1');
    await session.addItems([user('one'), assistant('two')]);
    await session.addItems([user('three')]);
    const reopened = await AgentsSkillSession.open(store, key, 'assistant');
    expect(await reopened.getItems()).toEqual([user('one'), assistant('two'), user('three')]);
    expect(await reopened.getItems(2)).toEqual([assistant('two'), user('three')]);
    expect(await reopened.popItem()).toEqual(user('three'));
    expect(await session.getItems()).toEqual([user('one'), assistant('two')]);
    const stored = await store.getSession(key);
    expect(stored?.events.map((event) => `${event.author}:${event.type}`)).toEqual([
      'user:agents-item',
      'assistant:agents-item',
      'user:agents-item',
      'system:agents-item-removed',
    ]);
  });

  it('stores state changes beside the next items; clearSession empties items and state', async () => {
    const store = createMemorySessionStore();
    const session = await AgentsSkillSession.open(store, key, 'assistant');
    session.state.set('temp:skill:assistant:loaded:pdf', '1');
    session.recordStateChange({ 'temp:skill:assistant:loaded:pdf': '1' });
    await session.addItems([user('load pdf')]);
    expect((await store.getSession(key))?.state).toEqual({ 'temp:skill:assistant:loaded:pdf': '1' });
    const reopened = await AgentsSkillSession.open(store, key, 'assistant');
    expect(reopened.state.get('temp:skill:assistant:loaded:pdf')).toBe('1');

    await reopened.clearSession();
    expect(await reopened.getItems()).toEqual([]);
    expect(reopened.state.keys()).toEqual([]);
    expect((await store.getSession(key))?.state).toEqual({});
  });

  it('two writers of one session both land: an append that lost the race goes on top', async () => {
    const store = createMemorySessionStore();
    const first = await AgentsSkillSession.open(store, key, 'triage');
    const second = await AgentsSkillSession.open(store, key, 'specialist');
    await first.addItems([user('from first')]);
    second.recordStateChange({ 'temp:skill:specialist:loaded:beta': '1' });
    await second.addItems([assistant('from second')]);
    await first.addItems([user('first again')]);
    expect(await second.getItems()).toEqual([user('from first'), assistant('from second'), user('first again')]);
    expect((await store.getSession(key))?.state).toEqual({ 'temp:skill:specialist:loaded:beta': '1' });
  });
});
