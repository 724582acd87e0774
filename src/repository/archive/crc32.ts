import * as zlib from 'node:zlib';

const table = new Uint32Array(256);
for (let index = 0; index < 256; index += 1) {
  let value = index;
  for (let bit = 0; bit < 8; bit += 1) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
  table[index] = value >>> 0;
}

function crc32InJavaScript(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (table[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

// zlib's native crc32 arrived in Node 20.15; earlier 20.x releases, which we support, use the table.
const native = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/** The CRC-32 zip stores per entry. */
export function crc32(bytes: Uint8Array): number {
  return native === undefined ? crc32InJavaScript(bytes) : native(bytes) >>> 0;
}

export { crc32InJavaScript };
