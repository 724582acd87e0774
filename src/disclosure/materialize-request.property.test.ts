import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { createInMemoryStateView } from '../state/in-memory-state-view.js';
import { createSkillTools } from '../tools/create-skill-tools.js';
import { SkillToolError } from '../tools/errors.js';
import { readLoadedSkills } from './loaded-skills.js';
import { type MaterializationMode, materializeRequest } from './materialize-request.js';
import type { ModelMessage, ToolResultOutput } from './model-messages.js';

const names = ['alpha', 'beta', 'gamma', 'delta'];
const repository = createMemorySkillRepository(
  names.map((name) => ({
    name,
    description: `${name} skill`,
    body: `BODY-OF-${name.toUpperCase()}`,
    files: { 'a.md': `doc a of ${name}`, 'b.md': `doc b of ${name}` },
    tools: ['tool_one', 'tool_two'],
  })),
);

const call = fc.oneof(
  fc.record({
    tool: fc.constant('skill_load'),
    input: fc.record(
      { skill: fc.constantFrom(...names, 'missing'), docs: fc.subarray(['a.md', 'b.md', 'zz.md']) },
      { requiredKeys: ['skill'] },
    ),
  }),
  fc.record({
    tool: fc.constant('skill_select_docs'),
    input: fc.record(
      {
        skill: fc.constantFrom(...names),
        docs: fc.subarray(['a.md', 'b.md']),
        include_all_docs: fc.boolean(),
        mode: fc.constantFrom('add', 'replace', 'clear'),
      },
      { requiredKeys: ['skill'] },
    ),
  }),
  fc.record({
    tool: fc.constant('skill_select_tools'),
    input: fc.record(
      {
        skill: fc.constantFrom(...names),
        tools: fc.subarray(['tool_one', 'tool_two']),
        mode: fc.constantFrom('add', 'replace', 'clear'),
      },
      { requiredKeys: ['skill'] },
    ),
  }),
);

function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

function requestText(messages: ModelMessage[]): string {
  return messages
    .map((message) => {
      if (typeof message.content === 'string') return message.content;
      return message.content
        .map((part) => ('output' in part ? JSON.stringify(part.output) : 'text' in part ? part.text : ''))
        .join('\n');
    })
    .join('\n');
}

async function play(
  mode: MaterializationMode,
  steps: { tool: string; input: Record<string, unknown> }[][],
  maxLoadedSkills: number,
) {
  const tools = createSkillTools({
    repository,
    profile: ['skill_load', 'skill_select_docs', 'skill_select_tools'],
    ...(maxLoadedSkills > 0 ? { maxLoadedSkills } : {}),
  });
  const state = createInMemoryStateView();
  const transcript: ModelMessage[] = [
    { role: 'system', content: 'base' },
    { role: 'user', content: 'go' },
  ];
  const requests: { messages: ModelMessage[]; loaded: string[] }[] = [];
  let id = 0;
  for (const step of [...steps, []]) {
    requests.push({
      messages: await materializeRequest({
        messages: transcript,
        state,
        agentName: 'agent',
        repository,
        mode,
        catalog: 'Available skills: ...',
      }),
      loaded: readLoadedSkills(state, 'agent').map((skill) => skill.name),
    });
    if (step.length === 0) continue;
    const parts = step.map((item) => ({ ...item, id: `c${++id}` }));
    transcript.push({
      role: 'assistant',
      content: parts.map((part) => ({
        type: 'tool-call' as const,
        toolCallId: part.id,
        toolName: part.tool,
        input: part.input,
      })),
    });
    const results = [];
    for (const part of parts) {
      let output: ToolResultOutput;
      try {
        const value = await tools
          .find((tool) => tool.name === part.tool)!
          .execute(part.input, { sessionId: 's', agentName: 'agent', state });
        state.commit();
        output = typeof value === 'string' ? { type: 'text', value } : { type: 'json', value: value as never };
      } catch (error) {
        if (!(error instanceof SkillToolError)) throw error;
        state.discard();
        output = { type: 'error-text', value: error.message };
      }
      results.push({ type: 'tool-result' as const, toolCallId: part.id, toolName: part.tool, output });
    }
    transcript.push({ role: 'tool', content: results });
  }
  return requests;
}

const scenario = fc.tuple(
  fc.array(fc.array(call, { minLength: 1, maxLength: 3 }), { maxLength: 6 }),
  fc.integer({ min: 0, max: 3 }),
);

describe('materializeRequest properties', () => {
  it('tool-result mode never changes the system message, and shows each loaded body exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ([steps, max]) => {
        const requests = await play('tool-result', steps, max);
        const firstSystem = requests[0]!.messages[0];
        for (const { messages, loaded } of requests) {
          expect(messages[0]).toEqual(firstSystem);
          const text = requestText(messages);
          for (const name of names)
            expect(count(text, `BODY-OF-${name.toUpperCase()}`)).toBe(loaded.includes(name) ? 1 : 0);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('system mode shows each loaded body exactly once and leaves the other messages as they were', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ([steps, max]) => {
        const requests = await play('system', steps, max);
        for (const { messages, loaded } of requests) {
          const text = requestText(messages);
          for (const name of names)
            expect(count(text, `BODY-OF-${name.toUpperCase()}`)).toBe(loaded.includes(name) ? 1 : 0);
          if (max > 0) expect(loaded.length).toBeLessThanOrEqual(max);
        }
      }),
      { numRuns: 40 },
    );
  });
});
