import { describe, expect, it } from 'vitest';
import { decodeWorkerMessage, encodeWorkerMessage, WorkerMessageError } from './worker-message.js';

describe('worker messages', () => {
  it('carries bytes raw after the header, not as base64, and gives them back', () => {
    const bytes = Buffer.from(Array.from({ length: 3000 }, (_, index) => index % 256));
    const message = encodeWorkerMessage({ put: { content: { data: bytes } }, limit: Number.POSITIVE_INFINITY });
    // Header plus the bytes themselves: base64 would have added a third.
    expect(message.length).toBeLessThan(bytes.length + 200);
    const decoded = decodeWorkerMessage<{ put: { content: { data: Buffer } }; limit: number }>(message);
    expect(decoded.put.content.data.equals(bytes)).toBe(true);
    expect(decoded.limit).toBe(Number.POSITIVE_INFINITY);
  });

  it('keeps several byte values apart, empty ones included', () => {
    const decoded = decodeWorkerMessage<Buffer[]>(
      encodeWorkerMessage([Buffer.from('one'), new Uint8Array(0), new Uint8Array([1, 2, 3]).subarray(1)]),
    );
    expect(decoded.map((part) => [...part])).toEqual([[111, 110, 101], [], [2, 3]]);
  });

  it('refuses what is not a message, saying why', () => {
    expect(() => decodeWorkerMessage(Buffer.from([0, 0]))).toThrow(WorkerMessageError);
    expect(() => decodeWorkerMessage(Buffer.from([0, 0, 1, 0, 1]))).toThrow(/header length past the end/);
    const notJson = Buffer.concat([Buffer.from([0, 0, 0, 3]), Buffer.from('{x}')]);
    expect(() => decodeWorkerMessage(notJson)).toThrow(/not JSON/);
    const past = Buffer.from('{"a":{"$bytes":[0,10]}}');
    const header = Buffer.alloc(4);
    header.writeUInt32BE(past.length);
    expect(() => decodeWorkerMessage(Buffer.concat([header, past, Buffer.from('short')]))).toThrow(/past the end/);
    const shaped = Buffer.from('{"a":{"$bytes":"x"}}');
    header.writeUInt32BE(shaped.length);
    expect(() => decodeWorkerMessage(Buffer.concat([header, shaped]))).toThrow(/not \[offset, length\]/);
  });
});
