import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { unavailableToolMessage } from '../../disclosure/unavailable-tool-message.js';
import {
  explainUnavailableToolCalls,
  findUnavailableToolCalls,
  isUnavailableToolError,
} from './unavailable-tool-calls.js';

const history: ModelMessage[] = [
  { role: 'user', content: 'hi' },
  {
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'ask_name_information', input: {} }],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'ask_name_information',
        output: {
          type: 'error-text',
          value: "Model tried to call unavailable tool 'ask_name_information'. Available tools: skill_load.",
        },
      },
      {
        type: 'tool-result',
        toolCallId: 'c2',
        toolName: 'other',
        output: { type: 'error-text', value: 'some other failure' },
      },
    ],
  },
];

describe('unavailable tool calls', () => {
  it('finds the SDK results and replaces them without touching the input', () => {
    expect([...findUnavailableToolCalls(history)]).toEqual(['ask_name_information']);
    const explained = explainUnavailableToolCalls(history, new Map([['ask_name_information', 'why and what to do']]));
    expect(explained[0]).toBe(history[0]);
    expect(explained[2]).toMatchObject({
      content: [{ output: { value: 'why and what to do' } }, { output: { value: 'some other failure' } }],
    });
    expect(JSON.stringify(history[2])).toContain("Model tried to call unavailable tool 'ask_name_information'");
  });

  it('tells the model what to call instead', () => {
    expect(unavailableToolMessage({ toolName: 't', providedBy: [] })).toMatch(/no skill lists it/);
    const message = unavailableToolMessage({ toolName: 't', providedBy: ['a', 'b'] });
    expect(message).toContain('("a", "b")');
    expect(message).toContain('Call skill_load with one of these skills first');
    expect(message).toContain('{"skill": <skill>, "tools": ["t"], "mode": "add"}');
  });
});

describe("the SDK's wording of an unavailable tool", () => {
  it('is recognised as ai 6 writes it (the message) and as ai 7 writes it (the error name first)', () => {
    const message = "Model tried to call unavailable tool 'x'. Available tools: skill_load.";
    expect(isUnavailableToolError(message)).toBe(true);
    expect(isUnavailableToolError(`AI_NoSuchToolError: ${message}`)).toBe(true);
    expect(isUnavailableToolError(`SomeOtherError: ${message}`)).toBe(false);
    expect(isUnavailableToolError('tool failed')).toBe(false);
  });
});
