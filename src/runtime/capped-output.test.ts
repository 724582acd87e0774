import { describe, expect, it } from 'vitest';
import { CappedOutput, utf8BoundaryAtOrBefore } from './capped-output.js';

describe('CappedOutput', () => {
  it('keeps everything under the limit', () => {
    const output = new CappedOutput(10);
    output.push(Buffer.from('abc'));
    output.push(Buffer.from('def'));
    expect(output.finish()).toEqual({ text: 'abcdef', truncated: false, droppedBytes: 0 });
  });

  it('keeps the first bytes and counts the rest across chunks', () => {
    const output = new CappedOutput(4);
    output.push(Buffer.from('abc'));
    output.push(Buffer.from('defgh'));
    output.push(Buffer.from('ij'));
    expect(output.finish()).toEqual({ text: 'abcd', truncated: true, droppedBytes: 6 });
  });

  it('never splits a multi-byte character at the cut', () => {
    // "é" is 2 bytes, "€" 3, "😀" 4: a cut inside any of them backs up to its first byte.
    for (const [text, limit, kept] of [
      ['aé', 2, 'a'],
      ['a€', 3, 'a'],
      ['a€', 2, 'a'],
      ['a😀', 4, 'a'],
      ['a😀b', 5, 'a😀'],
    ] as const) {
      const output = new CappedOutput(limit);
      output.push(Buffer.from(text));
      const result = output.finish();
      expect(result.text).toBe(kept);
      expect(result.droppedBytes).toBe(Buffer.byteLength(text) - Buffer.byteLength(kept));
    }
  });

  it('a zero limit keeps nothing and counts everything', () => {
    const output = new CappedOutput(0);
    output.push(Buffer.from('€€'));
    expect(output.finish()).toEqual({ text: '', truncated: true, droppedBytes: 6 });
  });

  it('finds boundaries only where a sequence is incomplete', () => {
    const bytes = Buffer.from('x€');
    expect(utf8BoundaryAtOrBefore(bytes, 4)).toBe(4);
    expect(utf8BoundaryAtOrBefore(bytes, 3)).toBe(1);
    expect(utf8BoundaryAtOrBefore(bytes, 1)).toBe(1);
    expect(utf8BoundaryAtOrBefore(bytes, 0)).toBe(0);
  });
});
