import { describe, expect, it } from 'vitest';
import { ExitStatusTrailer } from './exit-status-trailer.js';

function feed(marker: string, chunks: string[]): { passed: string; status: number | undefined } {
  const parts: Buffer[] = [];
  const trailer = new ExitStatusTrailer(marker, (chunk) => parts.push(Buffer.from(chunk)));
  for (const chunk of chunks) trailer.push(Buffer.from(chunk, 'utf8'));
  const status = trailer.finish();
  return { passed: Buffer.concat(parts).toString('utf8'), status };
}

describe('ExitStatusTrailer', () => {
  it('takes the status off the end, however the stream was cut', () => {
    const whole = 'some error\néàü end:M:42';
    for (let cut = 0; cut <= whole.length; cut += 1)
      expect(feed(':M:', [whole.slice(0, cut), whole.slice(cut)])).toEqual({
        passed: 'some error\néàü end',
        status: 42,
      });
    expect(feed(':M:', [':M:0'])).toEqual({ passed: '', status: 0 });
  });

  it('passes everything on and reports no status when the stream does not end with the trailer', () => {
    expect(feed(':M:', ['output :M:1 then more'])).toEqual({ passed: 'output :M:1 then more', status: undefined });
    expect(feed(':M:', ['ab'])).toEqual({ passed: 'ab', status: undefined });
    expect(feed(':M:', [':M:1234'])).toEqual({ passed: ':M:1234', status: undefined });
  });

  it('holds back no more than the trailer can be long', () => {
    const parts: Buffer[] = [];
    const trailer = new ExitStatusTrailer(':M:', (chunk) => parts.push(Buffer.from(chunk)));
    trailer.push(Buffer.alloc(1000, 120));
    expect(Buffer.concat(parts).length).toBe(1000 - 6);
  });
});
