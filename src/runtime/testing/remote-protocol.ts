import { SkillboxError, type SkillboxErrorCode, skillboxErrorCodes } from '../../errors.js';
import { RuntimeCommandError, WorkspacePathError } from '../errors.js';

/**
 * The wire format between the remote runtime (remote-runtime.ts) and its worker (remote-worker.ts):
 * one JSON request per HTTP POST on loopback, authorised by a token the worker got on its stdin.
 * Bytes travel as `{ "$bytes": "<base64>" }` so a whole tree fits one JSON document; infinite
 * numbers (no limit) as `{ "$number": "Infinity" }`, which JSON would turn into null.
 */
export interface RemoteRequest {
  /**
   * `run`, `abort`, `files` (then `operation` names the WorkspaceFiles method), or `process` (then
   * `operation` is `start`, `stop`, or a RuntimeProcess method: `writeStdin`, `closeStdin`, `read`,
   * `kill`, `exited`, the first parameter being the process's id).
   */
  method: 'run' | 'abort' | 'files' | 'process';
  /** The workspace's name: the host path the host gave, never a path on the worker. */
  workspace?: string;
  operation?: string;
  params: unknown[];
}

export type RemoteResponse = { ok: true; value: unknown } | { ok: false; error: SerializedError };

export interface SerializedError {
  name: string;
  message: string;
  code?: string;
  field?: string;
  path?: string;
}

/** JSON.stringify with bytes (Buffer, Uint8Array) as base64. */
export function encodeMessage(value: unknown): string {
  return JSON.stringify(value, function replacer(this: Record<string, unknown>, key: string, item: unknown) {
    // Buffer.toJSON runs before the replacer sees it: look at the raw value on the holder.
    const raw = this[key];
    if (raw instanceof Uint8Array) return { $bytes: Buffer.from(raw).toString('base64') };
    if (typeof raw === 'number' && !Number.isFinite(raw)) return { $number: String(raw) };
    return item;
  });
}

/** The inverse of `encodeMessage`: `{ $bytes }` back to a Buffer. */
export function decodeMessage<T>(text: string): T {
  return JSON.parse(text, (_key, item: unknown) => {
    if (item !== null && typeof item === 'object' && typeof (item as { $bytes?: unknown }).$bytes === 'string')
      return Buffer.from((item as { $bytes: string }).$bytes, 'base64');
    if (item !== null && typeof item === 'object' && typeof (item as { $number?: unknown }).$number === 'string')
      return Number((item as { $number: string }).$number);
    return item;
  }) as T;
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
