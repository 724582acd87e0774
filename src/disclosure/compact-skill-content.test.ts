import { describe, expect, it } from 'vitest';
import { compactSkillContent } from './compact-skill-content.js';
import type { ModelMessage } from './model-messages.js';

const body = 'line one\nline two\nline three';
const history: ModelMessage[] = [
  { role: 'user', content: 'go' },
  {
    role: 'assistant',
    content: [
      { type: 'tool-call', toolCallId: 'a', toolName: 'skill_read', input: { skill: 'calc' } },
      { type: 'tool-call', toolCallId: 'b', toolName: 'skill_read', input: { skill: 'calc', path: 'scripts/add.py' } },
      { type: 'tool-call', toolCallId: 'c', toolName: 'skill_load', input: { skill: 'calc' } },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'a', toolName: 'skill_read', output: { type: 'text', value: body } },
      { type: 'tool-result', toolCallId: 'b', toolName: 'skill_read', output: { type: 'text', value: 'print(1)' } },
      {
        type: 'tool-result',
        toolCallId: 'c',
        toolName: 'skill_load',
        output: { type: 'text', value: `[Loaded] calc\n\n${body}` },
      },
    ],
  },
  { role: 'user', content: 'next' },
];

describe('compactSkillContent', () => {
  it('turns skill bodies in old history into one-line stubs and leaves file reads alone', () => {
    const compacted = compactSkillContent(history, { keepRecentMessages: 1 });
    const tool = compacted[2];
    expect(tool?.role).toBe('tool');
    const outputs =
      tool?.role === 'tool' ? tool.content.map((part) => (part.type === 'tool-result' ? part.output : undefined)) : [];
    expect(outputs).toEqual([
      {
        type: 'text',
        value:
          '[compacted] skill "calc" SKILL.md: 28 characters, 3 lines; call skill_load or skill_read with {"skill":"calc"} to see it again.',
      },
      { type: 'text', value: 'print(1)' },
      {
        type: 'text',
        value:
          '[compacted] skill "calc" SKILL.md: 43 characters, 5 lines; call skill_load or skill_read with {"skill":"calc"} to see it again.',
      },
    ]);
    const original = history[2];
    expect(
      original?.role === 'tool' && original.content[0]?.type === 'tool-result' && original.content[0].output,
    ).toEqual({ type: 'text', value: body });
  });

  it('keeps the recent messages as they are', () => {
    expect(compactSkillContent(history, { keepRecentMessages: 2 })).toEqual(history);
  });

  it('leaves a stored "loaded: x" result alone unless asked, and compacts only what select picks', () => {
    const stored: ModelMessage[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'l', toolName: 'skill_load', input: { skill: 'calc' } },
          { type: 'tool-call', toolCallId: 'r', toolName: 'skill_read', input: { skill: 'calc' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'l',
            toolName: 'skill_load',
            output: { type: 'text', value: 'loaded: calc' },
          },
          { type: 'tool-result', toolCallId: 'r', toolName: 'skill_read', output: { type: 'text', value: body } },
        ],
      },
    ];
    const outputs = (messages: ModelMessage[]) => {
      const tool = messages[2];
      return tool?.role === 'tool'
        ? tool.content.map((part) => (part.type === 'tool-result' ? part.output : undefined))
        : [];
    };
    expect(outputs(compactSkillContent(stored))[0]).toEqual({ type: 'text', value: 'loaded: calc' });
    expect(outputs(compactSkillContent(stored, { compactLoadResults: true }))[0]).toEqual({
      type: 'text',
      value: '[compacted] skill "calc" is no longer loaded; call skill_load with {"skill":"calc"} to load it again.',
    });
    const onlyLoad = outputs(
      compactSkillContent(stored, { compactLoadResults: true, select: ({ toolCallId }) => toolCallId === 'l' }),
    );
    expect(onlyLoad[1]).toEqual({ type: 'text', value: body });
  });
});
