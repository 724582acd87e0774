import type { IncomingMessage, ServerResponse } from 'node:http';
import { type NonceMemory, sha256Hex, verifySignedHeaders } from './request-signature.js';
import { WorkerBusyError } from './worker-errors.js';
import { decodeWorkerMessage, encodeWorkerMessage } from './worker-message.js';
import {
  serializeError,
  type WorkerMethod,
  type WorkerRequest,
  type WorkerResponse,
  workerMethods,
  workerPathPrefix,
} from './worker-protocol.js';

/** What the HTTP side of a sandbox worker needs: the secret and its window, and what serves a checked request. */
export interface WorkerHttpContext {
  secret: Buffer;
  windowMs: number;
  nonces: NonceMemory;
  maxRequestBytes: number;
  dispatch(method: WorkerMethod, request: WorkerRequest, callerGone: AbortSignal): Promise<unknown>;
}

/**
 * One HTTP request to a sandbox worker: the signature, nonce and body digest are checked before
 * anything else (an unsigned caller learns nothing, not even whether the path exists), the body is
 * read up to its cap, and the answer is the dispatched value, the error it threw, or the busy
 * answer (`503` + `Retry-After`).
 */
export async function serveWorkerRequest(
  incoming: IncomingMessage,
  response: ServerResponse,
  context: WorkerHttpContext,
): Promise<void> {
  const { secret, windowMs, nonces, maxRequestBytes } = context;
  const url = incoming.url ?? '';
  const method = url.startsWith(workerPathPrefix) ? url.slice(workerPathPrefix.length) : '';
  // Nothing is said to an unsigned caller, not even whether the path exists.
  const signed = verifySignedHeaders(
    secret,
    { method: incoming.method ?? '', path: url, headers: incoming.headers },
    windowMs,
  );
  if (signed === undefined || !nonces.remember(signed.nonce, signed.timestampMs)) {
    refuse(incoming, response, 401, 'unauthenticated');
    return;
  }
  if (incoming.method !== 'POST' || !(workerMethods as readonly string[]).includes(method)) {
    refuse(incoming, response, 404, 'no such method');
    return;
  }
  const declared = Number(incoming.headers['content-length'] ?? Number.NaN);
  if (declared > maxRequestBytes) {
    refuse(incoming, response, 413, `request body larger than maxRequestBytes (${maxRequestBytes} bytes)`);
    return;
  }
  const body = await readBody(incoming, maxRequestBytes);
  if (body === undefined) {
    refuse(incoming, response, 413, `request body larger than maxRequestBytes (${maxRequestBytes} bytes)`);
    return;
  }
  if (sha256Hex(body) !== signed.contentSha256) {
    refuse(incoming, response, 401, 'unauthenticated');
    return;
  }
  let request: WorkerRequest;
  try {
    request = decodeWorkerMessage<WorkerRequest>(body);
    if (!Array.isArray(request?.params)) throw new Error('the message has no "params" list');
  } catch (error) {
    refuse(incoming, response, 400, (error as Error).message);
    return;
  }
  const callerGone = new AbortController();
  response.once('close', () => callerGone.abort());
  let reply: WorkerResponse;
  try {
    reply = { ok: true, value: await context.dispatch(method as WorkerMethod, request, callerGone.signal) };
  } catch (error) {
    if (error instanceof WorkerBusyError) {
      response
        .writeHead(503, { 'retry-after': String(Math.ceil(error.retryAfterMs / 1000)), 'content-type': 'text/plain' })
        .end(error.message);
      return;
    }
    reply = { ok: false, error: serializeError(error) };
  }
  response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(encodeWorkerMessage(reply));
}

export function refuse(incoming: IncomingMessage, response: ServerResponse, status: number, text: string): void {
  // The body is not read: closing the connection keeps an unread upload from being drained.
  response.writeHead(status, { 'content-type': 'text/plain', connection: 'close' }).end(text);
  // Drained for a moment so the caller reads the answer rather than a reset, then cut off: an
  // unread upload is never read to its end.
  incoming.resume();
  response.once('finish', () => setTimeout(() => incoming.socket?.destroy(), 1_000).unref());
}

/** The body, or undefined when it passes `maxBytes` (reading stops there). */
async function readBody(incoming: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
