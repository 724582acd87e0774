import { SkillboxConfigError } from '../../config/config-error.js';
import type { SessionKey } from '../../sessions/session-store.js';

/** A session's key with every part given: the key of its Restate virtual object. */
export interface SessionObjectKeyParts {
  appName: string;
  userId: string;
  sessionId: string;
}

/**
 * The virtual object key of a session: each part prefixed by its length (`7:default4:anna2:s1`), so
 * no two (app, user, session) triples share a key whatever characters the ids hold.
 */
export function sessionObjectKey(parts: SessionObjectKeyParts): string {
  return [parts.appName, parts.userId, parts.sessionId]
    .map((part, index) => {
      if (typeof part !== 'string' || part === '')
        throw new SkillboxConfigError('sessionObjectKey', [
          { option: ['appName', 'userId', 'sessionId'][index]!, problem: 'must be a non-empty string' },
        ]);
      return `${part.length}:${part}`;
    })
    .join('');
}

/** The session a virtual object key names; a clear error for a key `sessionObjectKey` did not make. */
export function parseSessionObjectKey(key: string): Required<SessionKey> {
  const parts: string[] = [];
  let at = 0;
  while (at < key.length && parts.length < 3) {
    const colon = key.indexOf(':', at);
    const length = colon < 0 ? Number.NaN : Number(key.slice(at, colon));
    if (!Number.isSafeInteger(length) || length <= 0 || colon + 1 + length > key.length) break;
    parts.push(key.slice(colon + 1, colon + 1 + length));
    at = colon + 1 + length;
  }
  if (parts.length !== 3 || at !== key.length)
    throw new SkillboxConfigError('skillbox session object', [
      {
        option: 'key',
        problem: `${JSON.stringify(key)} is not a session key; make it with sessionObjectKey({ appName, userId, sessionId })`,
      },
    ]);
  const [appName, userId, sessionId] = parts as [string, string, string];
  return { appName, userId, sessionId };
}
