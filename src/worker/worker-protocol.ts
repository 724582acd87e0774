import { SkillboxError, type SkillboxErrorCode, skillboxErrorCodes } from '../errors.js';
import { RuntimeCommandError, WorkspacePathError } from '../runtime/errors.js';

/**
 * The requests a remote runtime (remote-runtime.ts) sends a sandbox worker (sandbox-worker.ts):
 * each is `POST /v1/<method>` with a body in the worker message layout (worker-message.ts) and the
 * signature headers (request-signature.ts). The answer is 200 with `{ ok, value | error }` in the
 * same layout, or: 401 (unauthenticated, nothing more said), 413 (over `maxRequestBytes`), 503 with
 * Retry-After (busy: nothing started), 400 (not a message), 404 (no such method).
 */
export const workerMethods = ['run', 'abort', 'files', 'process'] as const;
export type WorkerMethod = (typeof workerMethods)[number];

export const workerPathPrefix = '/v1/';

export interface WorkerRequest {
  /** The workspace's name: the host path the agent side gave, never a path on the worker. */
  workspace?: string;
  /**
   * For `files`, the WorkspaceFiles method; for `process`, `start`, `stop`, or a RuntimeProcess
   * method (`writeStdin`, `closeStdin`, `read`, `kill`, `exited`), the first parameter being the process's id.
   */
  operation?: string;
  params: unknown[];
}

export type WorkerResponse = { ok: true; value: unknown } | { ok: false; error: SerializedError };

export interface SerializedError {
  name: string;
  message: string;
  code?: string;
  field?: string;
  path?: string;
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof Error) {
    const fields = error as Error & { code?: unknown; field?: unknown; path?: unknown };
    return {
      name: error.name,
      message: error.message,
      ...(typeof fields.code === 'string' ? { code: fields.code } : {}),
      ...(typeof fields.field === 'string' ? { field: fields.field } : {}),
      ...(typeof fields.path === 'string' ? { path: fields.path } : {}),
    };
  }
  return { name: 'Error', message: String(error) };
}

/**
 * The worker's error as the host would have thrown it: the classes callers tell apart (a refused
 * command field, a refused workspace path) keep their class, field and code, so the tools turn
 * them into the same messages for the model as with a host runtime.
 */
export function deserializeError(serialized: SerializedError): Error {
  let error: Error;
  if (serialized.name === 'RuntimeCommandError') error = new RuntimeCommandError(serialized.field ?? '', '');
  else if (serialized.name === 'WorkspacePathError') error = new WorkspacePathError(serialized.path ?? '', '');
  else if ((skillboxErrorCodes as readonly string[]).includes(serialized.code ?? ''))
    error = new SkillboxError(serialized.code as SkillboxErrorCode, '');
  else {
    // A system error keeps its code (ENOENT, ...), which callers look at.
    error = Object.assign(new Error(''), serialized.code === undefined ? {} : { code: serialized.code });
  }
  error.message = serialized.message;
  return error;
}
