import { describe, expect, it } from 'vitest';
import { NonceMemory, signatureHeaders, signRequest, verifySignedHeaders } from './request-signature.js';

const secret = Buffer.alloc(32, 1);
const request = { method: 'POST', path: '/v1/run', body: Buffer.from('body') };

describe('request signatures', () => {
  it('accepts what was signed with the secret, inside the window', () => {
    const headers = signRequest(secret, request, 1_000_000);
    const parts = verifySignedHeaders(secret, { ...request, headers }, 60_000, 1_030_000);
    expect(parts).toMatchObject({ timestampMs: 1_000_000, method: 'POST', path: '/v1/run' });
  });

  it('refuses another secret, method, path, timestamp or digest, and a stale one', () => {
    const headers = signRequest(secret, request, 1_000_000);
    const verify = (changed: Record<string, string>, overrides: Partial<typeof request> = {}, now = 1_000_000) =>
      verifySignedHeaders(secret, { ...request, ...overrides, headers: { ...headers, ...changed } }, 60_000, now);
    expect(verifySignedHeaders(Buffer.alloc(32, 2), { ...request, headers }, 60_000, 1_000_000)).toBeUndefined();
    expect(verify({}, { method: 'GET' })).toBeUndefined();
    expect(verify({}, { path: '/v1/files' })).toBeUndefined();
    expect(verify({ [signatureHeaders.timestamp]: '1000001' })).toBeUndefined();
    expect(verify({ [signatureHeaders.contentSha256]: '0'.repeat(64) })).toBeUndefined();
    expect(verify({ [signatureHeaders.signature]: 'zz' })).toBeUndefined();
    expect(verify({}, {}, 1_060_001)).toBeUndefined();
    expect(verify({}, {}, 939_999)).toBeUndefined();
  });

  it('remembers a nonce inside the window only', () => {
    const memory = new NonceMemory(1_000);
    expect(memory.remember('a'.repeat(32), 0, 0)).toBe(true);
    expect(memory.remember('a'.repeat(32), 0, 500)).toBe(false);
    expect(memory.remember('b'.repeat(32), 0, 500)).toBe(true);
    expect(memory.remember('c'.repeat(32), 2_000, 2_001)).toBe(true);
    expect(memory.size).toBe(1);
  });
});
