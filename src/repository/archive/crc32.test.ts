import { crc32 as nativeCrc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32, crc32InJavaScript } from './crc32.js';

describe('crc32', () => {
  it('gives the standard check value', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(crc32InJavaScript(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(crc32InJavaScript(new Uint8Array(0))).toBe(0);
  });

  it('agrees between the table and zlib on any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => crc32InJavaScript(bytes) === nativeCrc32(bytes) >>> 0),
    );
  });
});
