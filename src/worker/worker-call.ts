import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { nodeHttp } from '../node-http.js';
import { signRequest } from './request-signature.js';
import {
  WorkerBusyError,
  WorkerMessageTooLargeError,
  WorkerUnauthenticatedError,
  WorkerUnreachableError,
} from './worker-errors.js';
import { decodeWorkerMessage, encodeWorkerMessage } from './worker-message.js';
import { deserializeError, type WorkerMethod, type WorkerRequest, type WorkerResponse } from './worker-protocol.js';

/**
 * The header naming a request's workspace for a load balancer in front of several workers: a
 * digest of the workspace's name (the name itself, a host path, stays in the signed body). With
 * haproxy, `balance hdr(x-skillbox-workspace)` and `hash-type consistent` send every request of a
 * workspace to the worker holding it, and another one only when that worker is gone
 * (docs/workers.md, "Several workers"). Not signed: a changed header can only misroute a request,
 * which the worker it reaches then refuses (`WORKSPACE_HELD`) or serves from the last snapshot.
 */
export const workspaceRouteHeader = 'x-skillbox-workspace';

function workspaceRoute(workspace: string): string {
  return createHash('sha256').update(workspace).digest('hex').slice(0, 32);
}

/** Where a worker is and how much one request and one answer may hold. */
export interface WorkerAddress {
  url: string;
  secret: Buffer;
  maxRequestBytes: number;
  maxResponseBytes: number;
}

/** Sends one signed request to a worker and returns its value; `close()` drops the kept connections. */
export interface WorkerCaller {
  call(method: WorkerMethod, message: WorkerRequest): Promise<unknown>;
  close(): void;
}

/**
 * The remote runtime's connection to its worker: each call is one signed POST, answered with the
 * value or the worker's error (thrown as the worker threw it); the worker's refusals (401, 413, 503)
 * become their errors, and a connection that broke after the request was written rejects with
 * `sent: true`, since the worker may have acted on it.
 */
export function createWorkerCaller(options: WorkerAddress): WorkerCaller {
  const { secret, maxRequestBytes, maxResponseBytes } = options;
  const base = new URL(options.url);
  const secure = base.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new (nodeHttp().Agent)({ keepAlive: true });
  const prefix = base.pathname.replace(/\/+$/, '');

  /** Rejects with `sent: true` when the connection broke after the whole request was written. */
  const call = async (method: WorkerMethod, message: WorkerRequest): Promise<unknown> => {
    const body = encodeWorkerMessage(message);
    if (body.length > maxRequestBytes)
      throw new WorkerMessageTooLargeError(
        'maxRequestBytes',
        maxRequestBytes,
        `the ${describe(method, message)} request is ${body.length} bytes`,
      );
    const requestPath = `${prefix}/v1/${method}`;
    const headers = signRequest(secret, { method: 'POST', path: requestPath, body });
    const { status, text, retryAfter } = await new Promise<{ status: number; text: Buffer; retryAfter: number }>(
      (resolve, reject) => {
        let sent = false;
        const outgoing = (secure ? httpsRequest : nodeHttp().request)(
          {
            protocol: base.protocol,
            hostname: base.hostname.replace(/^\[|\]$/g, ''),
            port: base.port,
            method: 'POST',
            path: requestPath,
            agent,
            headers: {
              ...headers,
              ...(message.workspace === undefined ? {} : { [workspaceRouteHeader]: workspaceRoute(message.workspace) }),
              'content-type': 'application/octet-stream',
              'content-length': body.length,
            },
          },
          (response: IncomingMessage) => {
            const chunks: Buffer[] = [];
            let size = 0;
            response.on('data', (chunk: Buffer) => {
              size += chunk.length;
              if (size > maxResponseBytes) {
                response.destroy();
                reject(
                  new WorkerMessageTooLargeError(
                    'maxResponseBytes',
                    maxResponseBytes,
                    `the answer to ${describe(method, message)} is larger`,
                  ),
                );
                return;
              }
              chunks.push(chunk);
            });
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                text: Buffer.concat(chunks),
                retryAfter: Number(response.headers['retry-after'] ?? 1),
              }),
            );
            response.on('error', (error) => reject(Object.assign(error, { sent: true })));
          },
        );
        outgoing.on('finish', () => {
          sent = true;
        });
        outgoing.on('error', (error) => reject(sent ? Object.assign(error, { sent: true }) : error));
        outgoing.end(body);
      },
    ).catch((error: Error & { sent?: boolean }) => {
      if (error instanceof WorkerMessageTooLargeError) throw error;
      if (error.sent === true) throw Object.assign(new WorkerUnreachableError(options.url, error), { sent: true });
      throw new WorkerUnreachableError(options.url, error);
    });
    if (status === 200) {
      const reply = decodeWorkerMessage<WorkerResponse>(text);
      if (!reply.ok) throw deserializeError(reply.error);
      return reply.value;
    }
    if (status === 401) throw new WorkerUnauthenticatedError(options.url);
    if (status === 413)
      throw new WorkerMessageTooLargeError(
        'maxRequestBytes',
        maxRequestBytes,
        `the worker refused the ${describe(method, message)} request`,
      );
    if (status === 503)
      throw new WorkerBusyError((Number.isFinite(retryAfter) ? retryAfter : 1) * 1000, text.toString('utf8'));
    throw new Error(
      `the sandbox worker at ${options.url} answered HTTP ${status}: ${text.toString('utf8').slice(0, 500)}`,
    );
  };

  return { call, close: () => agent.destroy() };
}

function describe(method: WorkerMethod, message: WorkerRequest): string {
  return message.operation === undefined ? `"${method}"` : `"${method} ${message.operation}"`;
}
