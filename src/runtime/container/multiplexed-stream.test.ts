import { describe, expect, it } from 'vitest';
import { MultiplexedStreamReader } from './multiplexed-stream.js';

const frame = (stream: number, text: string) => {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
};

describe('MultiplexedStreamReader', () => {
  it('reassembles frames cut at every byte, keeping stdout and stderr apart', () => {
    const whole = Buffer.concat([frame(1, 'out one '), frame(2, 'err'), frame(1, 'out two'), frame(0, 'ignored')]);
    const seen = { stdout: '', stderr: '' };
    const reader = new MultiplexedStreamReader((stream, chunk) => {
      seen[stream] += chunk.toString();
    });
    for (let index = 0; index < whole.length; index += 1) reader.push(whole.subarray(index, index + 1));
    expect(seen).toEqual({ stdout: 'out one out two', stderr: 'err' });
  });
});
