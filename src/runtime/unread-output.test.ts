import { describe, expect, it } from 'vitest';
import { UnreadOutput } from './unread-output.js';

describe('UnreadOutput', () => {
  it('returns what was pushed since the last take', () => {
    const output = new UnreadOutput(100);
    output.push(Buffer.from('one '));
    output.push(Buffer.from('two'));
    expect(output.take(false)).toEqual({ text: 'one two', droppedBytes: 0 });
    expect(output.take(false)).toEqual({ text: '', droppedBytes: 0 });
    output.push(Buffer.from('three'));
    expect(output.take(false)).toEqual({ text: 'three', droppedBytes: 0 });
  });

  it('keeps the newest bytes within the limit and counts the dropped ones once', () => {
    const output = new UnreadOutput(10);
    output.push(Buffer.from('0123456789'));
    output.push(Buffer.from('abcde'));
    expect(output.size).toBe(10);
    expect(output.take(false)).toEqual({ text: '56789abcde', droppedBytes: 5 });
    expect(output.take(false).droppedBytes).toBe(0);
  });

  it('never starts or ends the text inside a character', () => {
    const output = new UnreadOutput(4);
    // "é" is two bytes: keeping the last 4 of "aé" + "éb" (6 bytes) would start inside the first é.
    output.push(Buffer.from('aé'));
    output.push(Buffer.from('éb'));
    expect(output.take(false)).toEqual({ text: 'éb', droppedBytes: 3 });
    const split = new UnreadOutput(100);
    const euro = Buffer.from('€');
    split.push(Buffer.concat([Buffer.from('x'), euro.subarray(0, 1)]));
    expect(split.take(false).text).toBe('x');
    split.push(euro.subarray(1));
    expect(split.take(false).text).toBe('€');
  });

  it('keeps nothing with a zero limit', () => {
    const output = new UnreadOutput(0);
    output.push(Buffer.from('abc'));
    expect(output.take(true)).toEqual({ text: '', droppedBytes: 3 });
  });
});
