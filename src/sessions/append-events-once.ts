import { SessionConflictError, SessionInputError } from './session-errors.js';
import type {
  AppendEventsOptions,
  AppendEventsResult,
  NewSessionEvent,
  SessionKey,
  SessionStore,
} from './session-store.js';

/**
 * `store.appendEvents`, made safe to repeat. Every event must carry its own id (one the caller
 * derives from what it is appending, such as a durable run's invocation id and step). When the
 * append conflicts because the session already holds exactly these events, by id, at the versions
 * this append would have given them, the earlier append is answered instead of an error: the
 * first attempt was stored and only its answer was lost (a worker died, a durable runner replays a
 * turn). Anything else that moved the session on is still a SessionConflictError.
 *
 * It needs nothing from a store beyond the `SessionStore` contract (events are immutable once
 * stored, ids are kept as given), so it works with every store, a third party's included, and
 * costs one read only on the conflict path.
 */
export async function appendEventsOnce(
  store: SessionStore,
  key: SessionKey,
  events: NewSessionEvent[],
  options: AppendEventsOptions,
): Promise<AppendEventsResult> {
  if (Array.isArray(events)) {
    const missing = events.findIndex((event) => typeof event?.id !== 'string');
    if (missing >= 0)
      throw new SessionInputError(
        `events[${missing}].id`,
        'must be given: an append is recognised as repeated by the ids of its events',
      );
  }
  try {
    return await store.appendEvents(key, events, options);
  } catch (error) {
    if (!(error instanceof SessionConflictError)) throw error;
    const { expectedVersion } = options;
    if (error.actualVersion < expectedVersion + events.length) throw error;
    const session = await store.getSession(key, { afterVersion: expectedVersion });
    const stored = session?.events.slice(0, events.length) ?? [];
    const sameAppend =
      stored.length === events.length &&
      stored.every((event, index) => event.id === events[index]!.id && event.version === expectedVersion + index + 1);
    if (!sameAppend) throw error;
    return { version: expectedVersion + events.length, events: stored };
  }
}
