import { OptionProblems } from '../config/option-problems.js';
import { SessionStoreClosedError, TurnFeedCursorError, TurnFeedEndedError } from './session-errors.js';
import {
  describeTurn,
  type FeedEvent,
  type NormalizedTurnFeedKey,
  normalizeTurnFeedKey,
  type PublishFeedOptions,
  prepareFeedEvents,
  type ReadFeedOptions,
  type TurnEventFeed,
  type TurnFeedKey,
} from './turn-event-feed.js';

/** Options of `createMemoryTurnEventFeed`. */
export interface MemoryTurnEventFeedOptions {
  /** How long an ended turn's feed stays readable; default 10 minutes. */
  retainEndedMs?: number;
}

interface Feed {
  events: Array<{ id: string; json: string }>;
  positions: Map<string, number>;
  ended: boolean;
  /** Readers waiting for the next publish. */
  waiting: Set<() => void>;
  readers: number;
}

/**
 * Turn feeds in this process's memory: a client can resume after a lost connection, not after the
 * process is gone (for that, the Redis feed). The same contract and conformance suite as the Redis feed.
 */
class MemoryTurnEventFeed implements TurnEventFeed {
  readonly #feeds = new Map<string, Feed>();
  readonly #retainEndedMs: number;
  readonly #timers = new Set<NodeJS.Timeout>();
  #closed = false;

  constructor(options: MemoryTurnEventFeedOptions) {
    const retainEndedMs = options?.retainEndedMs ?? 600_000;
    if (!Number.isSafeInteger(retainEndedMs) || retainEndedMs < 0) {
      const problems = new OptionProblems('createMemoryTurnEventFeed');
      problems.add('retainEndedMs', `must be a whole number of milliseconds, 0 or more; got ${String(retainEndedMs)}`);
      problems.throwIfAny();
    }
    this.#retainEndedMs = retainEndedMs;
  }

  async publish(key: TurnFeedKey, events: FeedEvent[], options: PublishFeedOptions = {}): Promise<void> {
    this.#checkOpen();
    const normalized = normalizeTurnFeedKey(key);
    const prepared = prepareFeedEvents(events);
    const mapKey = feedMapKey(normalized);
    const feed = this.#feed(mapKey);
    const fresh = prepared.filter(({ id }) => !feed.positions.has(id));
    if (feed.ended && fresh.length > 0) throw new TurnFeedEndedError(describeTurn(normalized), fresh[0]!.id);
    for (const event of fresh) {
      if (feed.positions.has(event.id)) continue; // the same id twice in one call
      feed.positions.set(event.id, feed.events.length);
      feed.events.push(event);
    }
    if (options.end === true && !feed.ended) {
      feed.ended = true;
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        this.#feeds.delete(mapKey);
      }, this.#retainEndedMs);
      timer.unref();
      this.#timers.add(timer);
    }
    for (const wake of feed.waiting) wake();
    feed.waiting.clear();
  }

  async *read(key: TurnFeedKey, options: ReadFeedOptions = {}): AsyncIterable<FeedEvent> {
    this.#checkOpen();
    const normalized = normalizeTurnFeedKey(key);
    const mapKey = feedMapKey(normalized);
    const feed = this.#feed(mapKey);
    feed.readers += 1;
    try {
      yield* this.#readFeed(feed, normalized, options);
    } finally {
      feed.readers -= 1;
      // A reader of a turn nothing was published to leaves nothing behind, whatever ids it asks for.
      if (feed.readers === 0 && feed.events.length === 0 && !feed.ended) this.#feeds.delete(mapKey);
    }
  }

  async *#readFeed(feed: Feed, normalized: NormalizedTurnFeedKey, options: ReadFeedOptions): AsyncIterable<FeedEvent> {
    let next = 0;
    if (options.after !== undefined) {
      const position = feed.positions.get(options.after);
      if (position === undefined) throw new TurnFeedCursorError(describeTurn(normalized), options.after);
      next = position + 1;
    }
    const { signal } = options;
    while (!this.#closed && signal?.aborted !== true) {
      while (next < feed.events.length) {
        const { id, json } = feed.events[next]!;
        next += 1;
        yield { id, data: JSON.parse(json) };
      }
      if (feed.ended) return;
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal?.removeEventListener('abort', wake);
          feed.waiting.delete(wake);
          resolve();
        };
        feed.waiting.add(wake);
        signal?.addEventListener('abort', wake, { once: true });
      });
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    for (const feed of this.#feeds.values()) for (const wake of feed.waiting) wake();
    this.#feeds.clear();
  }

  #feed(mapKey: string): Feed {
    let feed = this.#feeds.get(mapKey);
    if (feed === undefined) {
      feed = { events: [], positions: new Map(), ended: false, waiting: new Set(), readers: 0 };
      this.#feeds.set(mapKey, feed);
    }
    return feed;
  }

  #checkOpen(): void {
    if (this.#closed) throw new SessionStoreClosedError('MemoryTurnEventFeed');
  }
}

/** Turn feeds in this process's memory (see MemoryTurnEventFeedOptions). */
export function createMemoryTurnEventFeed(options: MemoryTurnEventFeedOptions = {}): TurnEventFeed {
  return new MemoryTurnEventFeed(options);
}

/** One map key per turn: JSON keeps the parts apart whatever characters the ids hold. */
function feedMapKey(key: NormalizedTurnFeedKey): string {
  return JSON.stringify([key.appName, key.userId, key.sessionId, key.turnId]);
}
