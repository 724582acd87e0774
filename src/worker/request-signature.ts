import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * How a request to a sandbox worker proves it comes from someone holding the shared secret:
 * HMAC-SHA256 over the method, the path, the timestamp, a nonce and the body's SHA-256, in headers.
 * The worker checks the signature before it reads the body, then the body against its digest, so
 * nothing an outsider sends is read past the headers. A captured request stops working once its
 * timestamp leaves the window, and inside the window its nonce is remembered (`NonceMemory`).
 */
export const signatureHeaders = {
  timestamp: 'x-skillbox-timestamp',
  nonce: 'x-skillbox-nonce',
  contentSha256: 'x-skillbox-content-sha256',
  signature: 'x-skillbox-signature',
} as const;

/** What the worker accepts by default: a timestamp at most this far from its own clock, either way. */
export const defaultSignatureWindowMs = 60_000;

/** The shortest secret accepted: 32 bytes, the HMAC-SHA256 key size (a short one is guessable offline). */
export const minimumSecretBytes = 32;

const nonceShape = /^[0-9a-f]{32}$/;
const digestShape = /^[0-9a-f]{64}$/;
const timestampShape = /^[0-9]{1,15}$/;

export interface SignedRequestParts {
  method: string;
  path: string;
  timestampMs: number;
  nonce: string;
  contentSha256: string;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function signatureOf(secret: Uint8Array, parts: SignedRequestParts): Buffer {
  // Version-tagged and newline-separated; none of the parts can hold a newline (checked shapes).
  const text = `skillbox-worker-v1\n${parts.method}\n${parts.path}\n${parts.timestampMs}\n${parts.nonce}\n${parts.contentSha256}`;
  return createHmac('sha256', secret).update(text, 'utf8').digest();
}

/** The headers that sign one request (a fresh nonce and the current time). */
export function signRequest(
  secret: Uint8Array,
  request: { method: string; path: string; body: Uint8Array },
  nowMs = Date.now(),
): Record<string, string> {
  const parts: SignedRequestParts = {
    method: request.method,
    path: request.path,
    timestampMs: nowMs,
    nonce: randomBytes(16).toString('hex'),
    contentSha256: sha256Hex(request.body),
  };
  return {
    [signatureHeaders.timestamp]: String(parts.timestampMs),
    [signatureHeaders.nonce]: parts.nonce,
    [signatureHeaders.contentSha256]: parts.contentSha256,
    [signatureHeaders.signature]: signatureOf(secret, parts).toString('hex'),
  };
}

/**
 * Checks a request's headers: well-formed, signed with `secret`, timestamp inside the window.
 * Returns the signed parts (the body digest still to compare, the nonce still to remember), or
 * undefined. Which of these failed is not said: the answer is the same "unauthenticated".
 */
export function verifySignedHeaders(
  secret: Uint8Array,
  request: { method: string; path: string; headers: Record<string, string | string[] | undefined> },
  windowMs: number,
  nowMs = Date.now(),
): SignedRequestParts | undefined {
  const header = (name: string): string => {
    const value = request.headers[name];
    return typeof value === 'string' ? value : '';
  };
  const timestamp = header(signatureHeaders.timestamp);
  const nonce = header(signatureHeaders.nonce);
  const contentSha256 = header(signatureHeaders.contentSha256);
  const given = header(signatureHeaders.signature);
  if (!timestampShape.test(timestamp) || !nonceShape.test(nonce) || !digestShape.test(contentSha256)) return undefined;
  if (!digestShape.test(given)) return undefined;
  const parts: SignedRequestParts = {
    method: request.method,
    path: request.path,
    timestampMs: Number(timestamp),
    nonce,
    contentSha256,
  };
  const expected = signatureOf(secret, parts);
  // Both are 32 bytes here (the shape check above), so the comparison takes the same time whatever differs.
  if (!timingSafeEqual(expected, Buffer.from(given, 'hex'))) return undefined;
  if (Math.abs(nowMs - parts.timestampMs) > windowMs) return undefined;
  return parts;
}

/**
 * The nonces of accepted requests, each kept until its timestamp has left the window (after that
 * the timestamp check refuses a replay on its own). Only requests with a valid signature are
 * remembered, so an outsider cannot fill it.
 */
export class NonceMemory {
  readonly #windowMs: number;
  readonly #seen = new Map<string, number>();

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  /** True the first time a nonce is offered inside the window; false for a replay. */
  remember(nonce: string, timestampMs: number, nowMs = Date.now()): boolean {
    this.#forgetExpired(nowMs);
    if (this.#seen.has(nonce)) return false;
    this.#seen.set(nonce, timestampMs + this.#windowMs);
    return true;
  }

  get size(): number {
    return this.#seen.size;
  }

  #forgetExpired(nowMs: number): void {
    for (const [nonce, forgetAt] of this.#seen) if (forgetAt < nowMs) this.#seen.delete(nonce);
  }
}
