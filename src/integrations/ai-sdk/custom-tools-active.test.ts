import { jsonSchema, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import type { SkillAgentEvent } from './agent-events.js';
import { createSkillAgent } from './skill-agent.js';
import { createScriptedModel } from './testing/scripted-model.js';

const repository = createMemorySkillRepository([
  { name: 'poetry', description: 'Write poems.', body: 'Write haiku.', tools: ['count_syllables'] },
]);
const textTool = (description: string) =>
  tool({ description, inputSchema: jsonSchema<object>({ type: 'object', properties: {} }), execute: async () => 'ok' });
const toolPool = { count_syllables: textTool('Count syllables.') };
const tools = { lookup_weather: textTool('The weather.') };

const offered = (call: { tools?: Array<{ name: string }> }) => (call.tools ?? []).map((entry) => entry.name).sort();

// run and asAiSdkAgent share one custom-tool step wrapper: the caller's tools are active in every
// step after the skill tools, and what a step reports as active is what the model was offered.
describe('the caller’s own tools in every step, for run and asAiSdkAgent alike', () => {
  it('run: the model is offered the custom tool, and step-finish reports exactly what it was offered', async () => {
    const { model, calls } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'poetry' } }] },
      { text: 'done' },
    ]);
    const agent = createSkillAgent({ model, repository, toolPool, tools });
    const events: SkillAgentEvent[] = [];
    for await (const event of agent.run({ userId: 'u', sessionId: 's', message: 'hi' })) events.push(event);
    const finished = events.filter((event) => event.type === 'step-finish');
    expect(finished).toHaveLength(2);
    for (const [index, event] of finished.entries()) {
      expect(event.activeTools).toContain('lookup_weather');
      expect([...event.activeTools].sort()).toEqual(offered(calls[index] as never));
    }
    expect(finished[1]?.activeTools).toContain('count_syllables');
  });

  it('asAiSdkAgent: the model is offered the custom tool in every step, the pool tool once its skill is loaded', async () => {
    const { model, calls } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'poetry' } }] },
      { text: 'done' },
    ]);
    const agent = createSkillAgent({ model, repository, toolPool, tools }).asAiSdkAgent();
    await agent.generate({ prompt: 'hi', options: { userId: 'u', sessionId: 's' } });
    expect(calls).toHaveLength(2);
    expect(offered(calls[0] as never)).toContain('lookup_weather');
    expect(offered(calls[0] as never)).not.toContain('count_syllables');
    expect(offered(calls[1] as never)).toEqual(expect.arrayContaining(['lookup_weather', 'count_syllables']));
  });
});
