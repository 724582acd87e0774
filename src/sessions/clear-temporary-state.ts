import { SessionConflictError, SessionInputError, SessionNotFoundError } from './session-errors.js';
import type { SessionKey, SessionStore } from './session-store.js';

export const temporaryStatePrefix = 'temp:';

/** Options of `clearTemporaryState`: the key prefix to clear, the author of its event, and retries on a conflict. */
export interface ClearTemporaryStateOptions {
  /** Keys starting with this are deleted; defaults to `"temp:"`. */
  prefix?: string;
  /** Author of the state event; defaults to `"system"`. */
  author?: string;
  /** Conflicts retried before giving up (re-reading each time); defaults to 5. */
  maxAttempts?: number;
}

/** What `clearTemporaryState` did: the session's new version and the keys it removed. */
export interface ClearTemporaryStateResult {
  /** The session version afterwards (unchanged when there was nothing to clear). */
  version: number;
  clearedKeys: string[];
}

/**
 * Deletes every state key with the prefix by appending one `"state"` event whose delta sets them
 * to null, so the clearing is in the log like any other change and concurrent writers are honoured.
 * Stores never clear `temp:` keys by themselves: the turn-start reset belongs to the layer
 * that owns the keys (disclosure load modes, called by the runner). This is for applications that
 * want "temp: lives for one turn" for their own keys; the runner may call it at turn start.
 */
export async function clearTemporaryState(
  store: SessionStore,
  key: SessionKey,
  options: ClearTemporaryStateOptions = {},
): Promise<ClearTemporaryStateResult> {
  const prefix = options.prefix ?? temporaryStatePrefix;
  if (typeof prefix !== 'string' || prefix === '')
    throw new SessionInputError('options.prefix', 'must be a non-empty string');
  const maxAttempts = options.maxAttempts ?? 5;
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1)
    throw new SessionInputError('options.maxAttempts', 'must be a positive integer');
  for (let attempt = 1; ; attempt += 1) {
    // Only the state is needed; a limit of 0 keeps a long session's events out of the read.
    const session = await store.getSession(key, { limit: 0 });
    if (session === undefined) throw new SessionNotFoundError(key);
    const clearedKeys = Object.keys(session.state).filter((name) => name.startsWith(prefix));
    if (clearedKeys.length === 0) return { version: session.version, clearedKeys };
    try {
      const { version } = await store.appendEvents(
        key,
        [
          {
            author: options.author ?? 'system',
            type: 'state',
            stateDelta: Object.fromEntries(clearedKeys.map((name) => [name, null])),
          },
        ],
        { expectedVersion: session.version },
      );
      return { version, clearedKeys };
    } catch (error) {
      if (!(error instanceof SessionConflictError) || attempt >= maxAttempts) throw error;
    }
  }
}
