import fc from 'fast-check';
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

  it('copies any JSON content as JSON would, and the copy shares nothing with the input', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (content) => {
        const [prepared] = prepareEvents([{ author: 'user', type: 'message', content }], 0);
        expect(prepared?.event.content).toEqual(JSON.parse(JSON.stringify(content)));
        if (typeof content === 'object' && content !== null) expect(prepared?.event.content).not.toBe(content);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses any content holding a value JSON cannot carry, naming a path that leads to it', () => {
    const unsupported = fc.constantFrom<unknown>(Number.NaN, Number.POSITIVE_INFINITY, 1n, () => 1, Symbol('s'));
    const withUnsupported = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.record({ bad: unsupported }),
        fc.array(tie('value'), { minLength: 1, maxLength: 3 }).map((items) => [...items, { bad: 1n }]),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), tie('value'), { maxKeys: 3 }).map((entries) => ({
          ...entries,
          deeper: { bad: Number.NaN },
        })),
      ),
    })).value;
    fc.assert(
      fc.property(withUnsupported, (content) => {
        expect(() => prepareEvents([{ author: 'user', type: 'message', content }], 0)).toThrow(
          /events\[0\]\.content.*\bbad\b/,
        );
      }),
      { numRuns: 300 },
    );
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

  it('copies JSON nested far deeper than any message, and names a bad value at any depth', () => {
    // 200 levels, alternating objects and arrays: past the depth where the copy checks for a cycle.
    let deep: unknown = 'bottom';
    for (let level = 0; level < 200; level += 1) deep = level % 2 === 0 ? { next: deep } : [deep];
    const [prepared] = prepareEvents([{ author: 'a', type: 't', content: deep }], 0);
    expect(prepared!.event.content).toStrictEqual(JSON.parse(JSON.stringify(deep)));
    expect(prepared!.event.content).not.toBe(deep);

    let bad: unknown = { value: Number.NaN };
    for (let level = 0; level < 100; level += 1) bad = [bad];
    let caught: unknown;
    try {
      prepareEvents([{ author: 'a', type: 't', content: bad }], 0);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SessionInputError);
    expect(caught).toMatchObject({ argument: `events[0].content${'[0]'.repeat(100)}.value` });
  });

  it('refuses an undefined array element and a cycle through arrays, naming the path', () => {
    const loop: unknown[] = [];
    loop.push({ again: loop });
    const cases: [unknown, string][] = [
      [{ parts: [{ text: 'a' }, undefined] }, 'events[0].content.parts[1]'],
      [{ parts: loop }, 'events[0].content.parts[0].again'],
    ];
    for (const [content, argument] of cases) {
      let caught: unknown;
      try {
        prepareEvents([{ author: 'a', type: 't', content }], 0);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(SessionInputError);
      expect(caught).toMatchObject({ argument });
    }
  });

  it('accepts a repeated but acyclic reference', () => {
    const shared = { text: 'same' };
    const [prepared] = prepareEvents([{ author: 'a', type: 't', content: [shared, shared] }], 0);
    expect(prepared?.event.content).toEqual([{ text: 'same' }, { text: 'same' }]);
  });
});
