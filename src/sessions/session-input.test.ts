import { describe, expect, it } from 'vitest';
import { SessionInputError } from './session-errors.js';
import { prepareEvents } from './session-input.js';

describe('prepareEvents', () => {
  it('numbers events after the current version, fills ids and timestamps, and keeps given ones', () => {
    const prepared = prepareEvents(
      [
        { author: 'user', type: 'message' },
        { author: 'user', type: 'message', id: 'mine', timestamp: 5 },
      ],
      7,
      1234,
    );
    expect(prepared.map(({ event }) => [event.version, event.timestamp])).toEqual([
      [8, 1234],
      [9, 5],
    ]);
    expect(prepared[0]?.event.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(prepared[1]?.event.id).toBe('mine');
    expect(JSON.parse(prepared[1]!.json)).toEqual(prepared[1]!.event);
  });

  it('accepts null-prototype objects and drops undefined properties, as JSON does', () => {
    const content = Object.assign(Object.create(null) as Record<string, unknown>, {
      role: 'user',
      providerOptions: undefined,
    });
    const [prepared] = prepareEvents([{ author: 'user', type: 'message', content }], 0);
    expect(prepared?.event.content).toEqual({ role: 'user' });
  });

  it('refuses cycles, Buffers, bigints and non-object metadata with the exact path', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    const cases: [unknown, string][] = [
      [{ author: 'a', type: 't', content: cyclic }, 'events[0].content.self.back'],
      [{ author: 'a', type: 't', content: { image: Buffer.from('png') } }, 'events[0].content.image'],
      [{ author: 'a', type: 't', content: { n: 1n } }, 'events[0].content.n'],
      [{ author: 'a', type: 't', metadata: ['x'] }, 'events[0].metadata'],
      ['not an event', 'events[0]'],
    ];
    for (const [event, argument] of cases) {
      let caught: unknown;
      try {
        prepareEvents([event], 0);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(SessionInputError);
      expect(caught).toMatchObject({ argument });
    }
  });

  it('returns the event exactly as its JSON reads back, sharing nothing with the input', () => {
    const content = JSON.parse('{"__proto__":{"polluted":true},"items":[{"n":-0},"x"],"skip":null}') as Record<
      string,
      unknown
    >;
    const input = {
      author: 'a',
      type: 't',
      content,
      stateDelta: { k: 'v', gone: null },
      usage: { inputTokens: 3, outputTokens: undefined },
      metadata: { nested: { list: [1, 2] } },
    };
    const [prepared] = prepareEvents([input], 0, 9);
    expect(prepared!.event).toStrictEqual(JSON.parse(prepared!.json));
    expect(Object.hasOwn(prepared!.event.content as object, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    (content.items as { n: number }[])[0]!.n = 5;
    input.stateDelta.k = 'changed';
    input.metadata.nested.list.push(3);
    expect(prepared!.event).toStrictEqual(JSON.parse(prepared!.json));
  });

  it('accepts a repeated but acyclic reference', () => {
    const shared = { text: 'same' };
    const [prepared] = prepareEvents([{ author: 'a', type: 't', content: [shared, shared] }], 0);
    expect(prepared?.event.content).toEqual([{ text: 'same' }, { text: 'same' }]);
  });
});
