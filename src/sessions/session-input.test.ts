import { describe, expect, it } from 'vitest';
import { SessionInputError } from './session-errors.js';
import { appendedEvents, prepareEvents } from './session-input.js';

const stored = (json: string) => JSON.parse(json) as Record<string, unknown>;

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
    expect(prepared.map(({ version, json }) => [version, stored(json).version, stored(json).timestamp])).toEqual([
      [8, 8, 1234],
      [9, 9, 5],
    ]);
    expect(stored(prepared[0]!.json).id).toMatch(/^[0-9a-f-]{36}$/);
    expect(stored(prepared[1]!.json)).toStrictEqual({
      version: 9,
      id: 'mine',
      author: 'user',
      type: 'message',
      timestamp: 5,
    });
  });

  it('accepts null-prototype objects and drops undefined properties, as JSON does', () => {
    const content = Object.assign(Object.create(null) as Record<string, unknown>, {
      role: 'user',
      providerOptions: undefined,
    });
    const [prepared] = prepareEvents([{ author: 'user', type: 'message', content }], 0);
    expect(stored(prepared!.json).content).toEqual({ role: 'user' });
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

  it('stores the event as JSON and hands back what that JSON reads back as, sharing nothing with the input', () => {
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
    const json = prepared!.json;
    expect(stored(json)).toStrictEqual({
      version: 1,
      id: stored(json).id,
      author: 'a',
      type: 't',
      timestamp: 9,
      content: JSON.parse('{"__proto__":{"polluted":true},"items":[{"n":0},"x"],"skip":null}'),
      stateDelta: { k: 'v', gone: null },
      usage: { inputTokens: 3 },
      metadata: { nested: { list: [1, 2] } },
    });
    const result = appendedEvents(1, [prepared!]);
    const [event] = result.events;
    expect(event).toStrictEqual(stored(json));
    expect(Object.hasOwn(event!.content as object, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    (content.items as { n: number }[])[0]!.n = 5;
    input.stateDelta.k = 'changed';
    input.metadata.nested.list.push(3);
    expect(prepared!.json).toBe(json);
    expect(prepared!.stateDelta).toEqual({ k: 'v', gone: null });
    expect(result.events[0]).toStrictEqual(stored(json));
    // Parsed once: the result behaves as a plain object holding the array.
    expect(result.events).toBe(result.events);
    expect({ ...result }).toEqual({ version: 1, events: [stored(json)] });
  });

  it('refuses with a named error input that reads differently when serialized than when checked', () => {
    let reads = 0;
    const content = {
      get value(): unknown {
        reads += 1;
        return reads === 1 ? 'text' : 1n;
      },
    };
    expect(() => prepareEvents([{ author: 'a', type: 't', content }], 0)).toThrow(
      expect.objectContaining({ code: 'SESSION_INPUT_INVALID', argument: 'events[0]' }),
    );
  });

  it('accepts a repeated but acyclic reference', () => {
    const shared = { text: 'same' };
    const [prepared] = prepareEvents([{ author: 'a', type: 't', content: [shared, shared] }], 0);
    expect(stored(prepared!.json).content).toEqual([{ text: 'same' }, { text: 'same' }]);
  });
});
