import { SessionInputError } from './session-errors.js';
import { checkId, type NormalizedSessionKey, normalizeKey } from './session-input.js';
import type { SessionKey } from './session-store.js';

/** One turn of one session: the feed's key. */
export interface TurnFeedKey extends SessionKey {
  /** Names the turn within its session (a durable runner uses its invocation id). */
  turnId: string;
}

/** One event of a turn's feed: `id` names it for deduplication and for resuming after it. */
export interface FeedEvent {
  /** Unique within the turn, and the same when a replayed step publishes the event again. */
  id: string;
  /** Any JSON value (the runner's event). */
  data: unknown;
}

/** Options of `TurnEventFeed.publish`. */
export interface PublishFeedOptions {
  /** The turn is over after these events: readers finish once they have read them. */
  end?: boolean;
}

/** Options of `TurnEventFeed.read`. */
export interface ReadFeedOptions {
  /** Resume after the event with this id (the last one the client received); from the start without it. */
  after?: string;
  /** Stops a reader that is waiting for more events. */
  signal?: AbortSignal;
}

/**
 * The live events of agent turns, kept outside the process running the turn, so a client that
 * loses its connection, or whose turn moves to another worker, resumes from the last event it
 * received: nothing twice (an id already in the feed is not added again), nothing lost (every
 * event after the client's last one, then the live tail). The `SessionStore` stays the record;
 * a feed holds a turn's events only while clients may still be streaming it.
 */
export interface TurnEventFeed {
  /**
   * Adds events to the turn's feed, in order, skipping any whose id the feed already holds. With
   * `end`, the feed is over after them. A new id after the end throws TurnFeedEndedError; ids
   * already published are skipped as always, so a replayed turn can publish all of it again.
   */
  publish(key: TurnFeedKey, events: FeedEvent[], options?: PublishFeedOptions): Promise<void>;
  /**
   * The turn's events after `after` (all without it), then each new one as it is published, until
   * the feed ends or `signal` aborts. Reading a turn nothing was published to yet waits for it. An
   * `after` the feed does not hold throws TurnFeedCursorError.
   */
  read(key: TurnFeedKey, options?: ReadFeedOptions): AsyncIterable<FeedEvent>;
  /** Ends waiting readers and releases connections. */
  close(): Promise<void>;
}

/** A checked feed key: the session's key as stores check it, plus the turn id. */
export interface NormalizedTurnFeedKey extends NormalizedSessionKey {
  turnId: string;
}

export function normalizeTurnFeedKey(key: TurnFeedKey): NormalizedTurnFeedKey {
  return { ...normalizeKey(key), turnId: checkId(key?.turnId, 'key.turnId') };
}

/** Checks every event before any is published, and gives each its JSON text. */
export function prepareFeedEvents(events: unknown): Array<{ id: string; json: string }> {
  if (!Array.isArray(events)) throw new SessionInputError('events', 'must be an array of { id, data }');
  return events.map((event: FeedEvent, index) => {
    if (typeof event !== 'object' || event === null)
      throw new SessionInputError(`events[${index}]`, 'must be an object { id, data }');
    const id = checkId(event.id, `events[${index}].id`);
    let json: string | undefined;
    try {
      json = JSON.stringify(event.data);
    } catch (error) {
      throw new SessionInputError(`events[${index}].data`, `is not JSON: ${(error as Error).message}`);
    }
    if (json === undefined) throw new SessionInputError(`events[${index}].data`, 'must be a JSON value');
    return { id, json };
  });
}

/** How errors name a turn: its session's key and its id. */
export function describeTurn(key: NormalizedTurnFeedKey): string {
  return `turn "${key.turnId}" of session "${key.sessionId}" (user "${key.userId}", app "${key.appName}")`;
}
