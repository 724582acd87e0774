import { describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { createMemorySessionStore } from '../../sessions/memory-session-store.js';
import { loadedKey } from '../../state/state-keys.js';
import type { SkillAgentEvent } from './agent-events.js';
import { createSkillAgent } from './skill-agent.js';
import { createScriptedModel } from './testing/scripted-model.js';

const repository = createMemorySkillRepository([
  {
    name: 'weather-tools',
    description: 'Weather queries.',
    body: 'Use get_current_weather.',
    tools: ['get_current_weather'],
    files: { 'docs/units.md': 'Celsius.' },
  },
]);

describe("a model prompted with the Python framework's skill_name", () => {
  it('gets its skill_load, skill_list_docs and skill_select_docs calls through the AI SDK, with the schema it sees unchanged', async () => {
    const { model, calls } = createScriptedModel([
      {
        toolCalls: [
          { name: 'skill_load', input: { skill_name: 'weather-tools' }, id: 'a1' },
          { name: 'skill_list_docs', input: { skill_name: 'weather-tools' }, id: 'a2' },
          { name: 'skill_select_docs', input: { skill_name: 'weather-tools', docs: ['docs/units.md'] }, id: 'a3' },
        ],
      },
      { text: 'done' },
    ]);
    const sessions = createMemorySessionStore();
    const agent = createSkillAgent({ model, repository, sessions, loadMode: 'session' });
    const events: SkillAgentEvent[] = [];
    for await (const event of agent.run({ userId: 'u', sessionId: 's', message: 'weather?' })) events.push(event);
    const results = events.flatMap((event) => (event.type === 'tool-result' ? [event] : []));
    // Calls that only read run alongside the others, so their results may come in any order.
    const outcomes = results.map((result) => [result.toolName, 'error' in result ? result.error : undefined]);
    expect(outcomes.sort()).toEqual([
      ['skill_list_docs', undefined],
      ['skill_load', undefined],
      ['skill_select_docs', undefined],
    ]);
    const session = await sessions.getSession({ userId: 'u', sessionId: 's' });
    expect(session?.state[loadedKey('assistant', 'weather-tools')]).toBeDefined();
    // The model is told `skill`, as before; the alias is accepted, not offered.
    const load = calls[0]?.tools?.find((candidate) => candidate.name === 'skill_load') as
      | { inputSchema: { properties: Record<string, unknown>; required: string[] } }
      | undefined;
    expect(Object.keys(load?.inputSchema.properties ?? {})).toEqual(['skill', 'docs', 'include_all_docs']);
    expect(load?.inputSchema.required).toEqual(['skill']);
    expect(JSON.stringify(calls[0]?.tools)).not.toContain('skill_name');
  });
});
