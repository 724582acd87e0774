import type { Redis } from 'ioredis';
import { OptionProblems } from '../../config/option-problems.js';
import {
  SessionStoreClosedError,
  SessionStoreUnavailableError,
  TurnFeedCursorError,
  TurnFeedEndedError,
} from '../session-errors.js';
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
} from '../turn-event-feed.js';
import { checkRedisClientOptions, type RedisClientOptions } from './redis-client-options.js';

/** Options of `openRedisTurnEventFeed`. */
export interface RedisTurnEventFeedOptions extends RedisClientOptions {
  /** How long a turn's feed stays after its last publish, in seconds; default 3600. */
  retainSeconds?: number;
}

/**
 * The ids hash maps event id -> stream entry id, and its field "\nended" (a newline, which no event
 * id holds: ids have no control characters) marks the end.
 * KEYS: stream, ids hash. ARGV: retainSeconds, end (0/1), then id/json pairs. Returns {0} when
 * written, {-1, id} when a new id came after the end. One script, so two workers publishing the
 * same replayed step cannot both add an event.
 */
const publishScript = `
local ended = redis.call('HEXISTS', KEYS[2], '\\nended') == 1
for i = 3, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[2], ARGV[i]) == 0 then
    if ended then return {-1, ARGV[i]} end
    local entry = redis.call('XADD', KEYS[1], '*', 'i', ARGV[i], 'd', ARGV[i + 1])
    redis.call('HSET', KEYS[2], ARGV[i], entry)
  end
end
if ARGV[2] == '1' and not ended then
  redis.call('XADD', KEYS[1], '*', 'e', '1')
  redis.call('HSET', KEYS[2], '\\nended', '1')
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[1])
return {0}
`;

/** How long one blocking read waits before the reader checks its signal again. */
const blockMs = 500;

/**
 * Turn feeds in Redis Streams: one stream and one id hash per turn, in the session's hash slot, so a
 * client resumes on any worker, after any worker died. Readers block on their own connection (a
 * blocking XREAD holds one), made when the read starts and closed when it ends.
 */
class RedisTurnEventFeed implements TurnEventFeed {
  readonly #client: Redis;
  readonly #ownsClient: boolean;
  readonly #keyPrefix: string;
  readonly #retainSeconds: number;
  readonly #readers = new Set<Redis>();
  #script: string | undefined;
  #closed = false;

  constructor(client: Redis, ownsClient: boolean, keyPrefix: string, retainSeconds: number) {
    this.#client = client;
    this.#ownsClient = ownsClient;
    this.#keyPrefix = keyPrefix;
    this.#retainSeconds = retainSeconds;
  }

  async connect(): Promise<void> {
    if (this.#ownsClient) {
      try {
        await this.#client.connect();
      } catch (error) {
        throw new SessionStoreUnavailableError(
          `cannot connect to Redis for the turn event feed: ${(error as Error).message}`,
          { cause: error },
        );
      }
    }
    this.#script = (await this.#client.script('LOAD', publishScript)) as string;
  }

  async publish(key: TurnFeedKey, events: FeedEvent[], options: PublishFeedOptions = {}): Promise<void> {
    this.#checkOpen();
    const normalized = normalizeTurnFeedKey(key);
    const prepared = prepareFeedEvents(events);
    const [stream, ids] = this.#keys(normalized);
    const result = (await this.#client.evalsha(
      this.#script!,
      2,
      stream,
      ids,
      this.#retainSeconds,
      options.end === true ? '1' : '0',
      ...prepared.flatMap(({ id, json }) => [id, json]),
    )) as [number, string?];
    if (result[0] === -1) throw new TurnFeedEndedError(describeTurn(normalized), result[1]!);
  }

  async *read(key: TurnFeedKey, options: ReadFeedOptions = {}): AsyncIterable<FeedEvent> {
    this.#checkOpen();
    const normalized = normalizeTurnFeedKey(key);
    const [stream, ids] = this.#keys(normalized);
    let last = '0-0';
    if (options.after !== undefined) {
      const entry = await this.#client.hget(ids, options.after);
      if (entry === null) throw new TurnFeedCursorError(describeTurn(normalized), options.after);
      last = entry;
    }
    const reader = this.#client.duplicate();
    reader.on('error', () => undefined);
    this.#readers.add(reader);
    const { signal } = options;
    const stop = () => reader.disconnect();
    // A function, not the expression: the loop's condition would narrow `aborted` inside it.
    const aborted = () => this.#closed || signal?.aborted === true;
    signal?.addEventListener('abort', stop, { once: true });
    try {
      while (!aborted()) {
        let answer: Array<[string, Array<[string, string[]]>]> | null;
        try {
          answer = (await reader.xread('COUNT', 256, 'BLOCK', blockMs, 'STREAMS', stream, last)) as typeof answer;
        } catch (error) {
          if (aborted()) return;
          throw error;
        }
        for (const [entryId, fields] of answer?.[0]?.[1] ?? []) {
          last = entryId;
          const values = new Map<string, string>();
          for (let index = 0; index + 1 < fields.length; index += 2) values.set(fields[index]!, fields[index + 1]!);
          if (values.has('e')) return;
          yield { id: values.get('i')!, data: JSON.parse(values.get('d')!) };
        }
      }
    } finally {
      signal?.removeEventListener('abort', stop);
      this.#readers.delete(reader);
      reader.disconnect();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const reader of this.#readers) reader.disconnect();
    if (this.#ownsClient) this.#client.disconnect();
  }

  /** The turn's stream and id hash, in the hash slot of the user's session keys. */
  #keys(key: NormalizedTurnFeedKey): [string, string] {
    const tag = `${this.#keyPrefix}{${encodeURIComponent(key.appName)}:${encodeURIComponent(key.userId)}}`;
    const base = `${tag}:feed:${encodeURIComponent(key.sessionId)}:${encodeURIComponent(key.turnId)}`;
    return [base, `${base}:ids`];
  }

  #checkOpen(): void {
    if (this.#closed) throw new SessionStoreClosedError('RedisTurnEventFeed');
  }
}

/** Opens turn feeds in Redis Streams (see RedisTurnEventFeedOptions); close() releases its connections. */
export async function openRedisTurnEventFeed(options: RedisTurnEventFeedOptions): Promise<TurnEventFeed> {
  const { client, ownsClient, keyPrefix } = checkRedisClientOptions('openRedisTurnEventFeed', options);
  const retainSeconds = options.retainSeconds ?? 3600;
  if (!Number.isSafeInteger(retainSeconds) || retainSeconds < 1) {
    if (ownsClient) client.disconnect();
    const problems = new OptionProblems('openRedisTurnEventFeed');
    problems.add('retainSeconds', `must be a whole number of seconds, at least 1; got ${String(retainSeconds)}`);
    problems.throwIfAny();
  }
  const feed = new RedisTurnEventFeed(client, ownsClient, keyPrefix, retainSeconds);
  try {
    await feed.connect();
  } catch (error) {
    await feed.close();
    throw error;
  }
  return feed;
}
