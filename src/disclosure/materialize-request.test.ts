import { describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { applyDelta } from '../state/state-delta.js';
import { compactSkillContent } from './compact-skill-content.js';
import { materializeRequest } from './materialize-request.js';
import type { ModelMessage } from './model-messages.js';
import { loadSkill } from './skill-transitions.js';

const repository = createMemorySkillRepository([
  { name: 'calc', description: 'Calculate.', body: 'CALC BODY' },
  { name: 'notes', description: 'Take notes.', body: 'NOTES BODY' },
]);
const state = applyDelta(new Map(), loadSkill(new Map(), { agentName: 'a', skill: 'calc', docs: [] }));

function loadResult(id: string, text: string): ModelMessage {
  return {
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: id, toolName: 'skill_load', output: { type: 'text', value: text } }],
  };
}

describe('materializeRequest anchors', () => {
  it('takes the skill from the call input, never from the text of the result', async () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'skill_load', input: { skill: 'calc' } }],
      },
      // A result whose text names another skill: the text is for the model, the input is the fact.
      loadResult('c1', 'loaded: notes'),
    ];
    const request = await materializeRequest({ messages, state, agentName: 'a', repository, mode: 'tool-result' });
    const result = request[2] as Extract<ModelMessage, { role: 'tool' }>;
    expect(result.content[0]).toMatchObject({ output: { type: 'text', value: expect.stringContaining('CALC BODY') } });
    expect(request.some((message) => message.role === 'system')).toBe(false);
  });

  it('puts a loaded skill whose call is not in the messages into a system message', async () => {
    const messages: ModelMessage[] = [{ role: 'user', content: 'hi' }, loadResult('gone', 'loaded: calc')];
    const request = await materializeRequest({ messages, state, agentName: 'a', repository, mode: 'tool-result' });
    expect(request.find((message) => message.role === 'tool')).toEqual(loadResult('gone', 'loaded: calc'));
    expect(request.find((message) => message.role === 'system')?.content).toContain('[Loaded] calc\n\nCALC BODY');
  });
});

describe('compactSkillContent', () => {
  it('compacts loaded content only for a result whose call names the skill', () => {
    const messages: ModelMessage[] = [
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'skill_load', input: { skill: 'calc' } }],
      },
      loadResult('c1', '[Loaded] calc\n\nCALC BODY'),
      // No call for this result: nothing says which skill it holds, so it is left alone.
      loadResult('orphan', '[Loaded] notes\n\nNOTES BODY'),
    ];
    const compacted = compactSkillContent(messages);
    expect(JSON.stringify(compacted[1])).toContain('[compacted] skill \\"calc\\"');
    expect(compacted[2]).toEqual(messages[2]);
  });
});
