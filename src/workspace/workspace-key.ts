import { createHash } from 'node:crypto';
import { throwConfigError } from '../config/option-problems.js';

/**
 * Whose workspace: one per (app, user, session). Session ids are often chosen by the client or
 * numbered per user, so two users (or two apps on one manager) may well use the same one; keyed by
 * the session alone they would share files, inputs and artifacts.
 */
export interface WorkspaceKey {
  appName?: string;
  userId?: string;
  sessionId: string;
}

/** A plain session id is the key with no app and no user. */
export function toWorkspaceKey(key: string | WorkspaceKey, what = 'sessionId'): WorkspaceKey {
  const candidate: WorkspaceKey = typeof key === 'string' ? { sessionId: key } : key;
  if (candidate === null || typeof candidate !== 'object')
    throwConfigError('WorkspaceManager.workspace', what, 'must be a session id or { appName?, userId?, sessionId }');
  if (typeof candidate.sessionId !== 'string' || candidate.sessionId.length === 0)
    throwConfigError('WorkspaceManager.workspace', what, 'must be a non-empty session id');
  for (const part of ['appName', 'userId'] as const) {
    if (candidate[part] !== undefined && typeof candidate[part] !== 'string')
      throwConfigError('WorkspaceManager.workspace', `${what}.${part}`, 'must be a string when given');
  }
  return {
    ...(candidate.appName !== undefined ? { appName: candidate.appName } : {}),
    ...(candidate.userId !== undefined ? { userId: candidate.userId } : {}),
    sessionId: candidate.sessionId,
  };
}

/**
 * One string per key, distinct for distinct keys: each part is percent-encoded (no `/` survives)
 * and marked present (`=value`) or absent (`-`), so neither a separator inside an id nor a missing
 * part can make two keys meet. Used for the in-memory table and as the artifact scope.
 */
export function workspaceKeyId(key: WorkspaceKey): string {
  const part = (value: string | undefined) => (value === undefined ? '-' : `=${encodeURIComponent(value)}`);
  return `${part(key.appName)}/${part(key.userId)}/${part(key.sessionId)}`;
}

/** sha256 of the key id, in hex: 128 bits name the workspace folder, so folders of two keys never meet. */
export function workspaceKeyDigest(key: WorkspaceKey): string {
  return createHash('sha256').update(workspaceKeyId(key)).digest('hex').slice(0, 32);
}
