import { describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../../config/config-error.js';
import { parseSessionObjectKey, sessionObjectKey } from './session-object-key.js';

describe('sessionObjectKey', () => {
  it('prefixes each part by its length, so triples that concatenate alike get different keys', () => {
    const a = sessionObjectKey({ appName: 'app', userId: 'ab', sessionId: 'c' });
    const b = sessionObjectKey({ appName: 'app', userId: 'a', sessionId: 'bc' });
    const c = sessionObjectKey({ appName: 'app', userId: 'a1:b', sessionId: 'c' });
    expect(a).toBe('3:app2:ab1:c');
    expect(new Set([a, b, c]).size).toBe(3);
  });

  it('reads back the parts, whatever characters they hold', () => {
    const parts = { appName: 'default', userId: '4:x/ü', sessionId: ':1:2:' };
    expect(parseSessionObjectKey(sessionObjectKey(parts))).toEqual(parts);
  });

  it('refuses a key it did not make, and an empty part, naming what is wrong', () => {
    for (const key of ['anna/s1', '3:app2:ab', '3:app2:ab1:cX', '0:3:app1:a'])
      expect(() => parseSessionObjectKey(key)).toThrow(/is not a session key; make it with sessionObjectKey/);
    expect(() => sessionObjectKey({ appName: 'app', userId: '', sessionId: 's' })).toThrow(SkillboxConfigError);
    expect(() => sessionObjectKey({ appName: 'app', userId: '', sessionId: 's' })).toThrow(/userId/);
  });
});
