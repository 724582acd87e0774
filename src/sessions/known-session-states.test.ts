import { describe, expect, it } from 'vitest';
import { type KnownSession, KnownSessionStates } from './known-session-states.js';

const session = (version: number): KnownSession => ({ id: version, version, state: {}, stateText: '{}' });
const key = (index: number) => KnownSessionStates.keyOf({ appName: 'default', userId: 'u', sessionId: `s${index}` });

describe('KnownSessionStates', () => {
  it('keys each session by all three ids, whichever was asked for last', () => {
    const keys = [
      { appName: 'default', userId: 'u', sessionId: 's' },
      { appName: 'default', userId: 'u', sessionId: 's2' },
      { appName: 'default', userId: 'u2', sessionId: 's' },
      { appName: 'other', userId: 'u', sessionId: 's' },
    ];
    const first = keys.map((ids) => KnownSessionStates.keyOf(ids));
    expect(new Set(first).size).toBe(4);
    // Asked again, one after another and with ids that are equal strings but not the same objects.
    for (const [index, ids] of keys.entries()) {
      const copy = {
        appName: [...ids.appName].join(''),
        userId: [...ids.userId].join(''),
        sessionId: `${ids.sessionId}`,
      };
      expect(KnownSessionStates.keyOf(copy)).toBe(first[index]);
      expect(KnownSessionStates.keyOf(ids)).toBe(first[index]);
    }
    expect(KnownSessionStates.keyOf(keys[0]!)).not.toBe(KnownSessionStates.keyOf(keys[3]!));
  });

  it('forgets the least recently remembered session first, counting a session remembered again as new', () => {
    const known = new KnownSessionStates();
    for (let index = 0; index < 256; index += 1) known.remember(key(index), session(index));
    // s0 is remembered again, twice (the second time it is already the newest): s1 is now the oldest.
    known.remember(key(0), session(1000));
    known.remember(key(0), session(1001));
    known.remember(key(256), session(256));
    expect(known.get(key(1))).toBeUndefined();
    expect(known.get(key(0))?.version).toBe(1001);
    expect(known.get(key(2))?.version).toBe(2);
    expect(known.get(key(256))?.version).toBe(256);
  });

  it('remembers a session again after forgetting it while it was the newest', () => {
    const known = new KnownSessionStates();
    known.remember(key(1), session(1));
    known.remember(key(2), session(2));
    known.forget(key(2));
    expect(known.get(key(2))).toBeUndefined();
    known.remember(key(2), session(3));
    expect(known.get(key(2))?.version).toBe(3);
    // Re-remembered after the forget, s2 is the newest again: filling up evicts s1 before it.
    for (let index = 10; index < 10 + 254; index += 1) known.remember(key(index), session(index));
    known.remember(key(999), session(999));
    expect(known.get(key(1))).toBeUndefined();
    expect(known.get(key(2))?.version).toBe(3);
  });
});
