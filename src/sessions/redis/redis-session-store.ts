import type { Redis } from 'ioredis';
import {
  SessionConflictError,
  SessionExistsError,
  SessionNotFoundError,
  SessionStoreClosedError,
  SessionStoreSchemaError,
  SessionStoreUnavailableError,
} from '../session-errors.js';
import type { NormalizedSessionKey, PreparedEvent } from '../session-input.js';
import {
  checkAppName,
  checkExpectedVersion,
  checkGetOptions,
  checkId,
  checkInitialState,
  normalizeKey,
  prepareEvents,
  sortSummaries,
} from '../session-input.js';
import { sessionOfParts } from '../session-of-parts.js';
import type {
  AppendEventsOptions,
  AppendEventsResult,
  CreateSessionOptions,
  GetSessionOptions,
  ListSessionsOptions,
  NewSessionEvent,
  Session,
  SessionEvent,
  SessionKey,
  SessionStore,
  SessionSummary,
} from '../session-store.js';
import { checkRedisClientOptions, type RedisClientOptions } from './redis-client-options.js';
import { appendEventsScript, createSessionScript, deleteSessionScript } from './redis-session-scripts.js';

/** Options of `openRedisSessionStore`: a client or a URL, and the key prefix. */
export type RedisSessionStoreOptions = RedisClientOptions;

/** Bumped when the key layout changes; recorded under `<prefix>schema`. */
export const redisSchemaVersion = 1;

const scriptSources = {
  createSession: createSessionScript,
  appendEvents: appendEventsScript,
  deleteSession: deleteSessionScript,
};

/**
 * Sessions in Redis: a hash of metadata, a list of events and a hash of state per session, and a
 * sorted set per user for listing. Every change is one Lua script, hence atomic; a read is one
 * MULTI/EXEC, hence one snapshot. Keys hold
 * URI-encoded ids, so no id can forge another session's key.
 */
export class RedisSessionStore implements SessionStore {
  readonly keyPrefix: string;
  readonly #client: Redis;
  readonly #ownsClient: boolean;
  readonly #scripts = new Map<keyof typeof scriptSources, string>();
  #closed = false;

  private constructor(client: Redis, ownsClient: boolean, keyPrefix: string) {
    this.#client = client;
    this.#ownsClient = ownsClient;
    this.keyPrefix = keyPrefix;
  }

  /** Connects, loads the scripts and checks (or records) the key layout version. */
  static async open(options: RedisSessionStoreOptions): Promise<RedisSessionStore> {
    const { client, ownsClient, keyPrefix } = checkRedisClientOptions('openRedisSessionStore', options);
    const store = new RedisSessionStore(client, ownsClient, keyPrefix);
    try {
      if (ownsClient) {
        try {
          await client.connect();
        } catch (error) {
          throw new SessionStoreUnavailableError(
            `cannot connect to Redis for the session store: ${(error as Error).message}`,
            { cause: error },
          );
        }
      }
      await client.set(`${keyPrefix}schema`, String(redisSchemaVersion), 'NX');
      const found = Number(await client.get(`${keyPrefix}schema`));
      if (found !== redisSchemaVersion) {
        throw new SessionStoreSchemaError(
          `Redis keys under "${keyPrefix}" have session schema version ${found}; this skillbox knows ${redisSchemaVersion}`,
        );
      }
      for (const [name, source] of Object.entries(scriptSources)) {
        store.#scripts.set(name as keyof typeof scriptSources, (await client.script('LOAD', source)) as string);
      }
      return store;
    } catch (error) {
      if (ownsClient) client.disconnect();
      throw error;
    }
  }

  async createSession(key: SessionKey, options?: CreateSessionOptions): Promise<Session> {
    this.#checkOpen();
    const normalized = normalizeKey(key);
    const state = checkInitialState(options?.state);
    const now = Date.now();
    const created = await this.#run('createSession', this.#keys(normalized), [
      now,
      normalized.sessionId,
      ...Object.entries(state).flat(),
    ]);
    if (created === 0) throw new SessionExistsError(normalized);
    return sessionOfParts(normalized, 0, now, now, state, []);
  }

  async getSession(key: SessionKey, options?: GetSessionOptions): Promise<Session | undefined> {
    this.#checkOpen();
    const normalized = normalizeKey(key);
    const { afterVersion, limit } = checkGetOptions(options);
    const [metaKey, eventsKey, stateKey] = this.#keys(normalized);
    // One MULTI/EXEC, not a script: Redis runs it without interleaving other clients' commands, so
    // the three replies are one snapshot, and the events go straight from the list to the reply,
    // where a script copied each one into Lua and back (a read of 100 events ran at 0.78 of the
    // bare driver's speed that way; see bench/sessions.bench.ts).
    const transaction = this.#client.multi().hgetall(metaKey).hgetall(stateKey);
    // A list index is the event's version - 1; a negative index counts from the end.
    if (limit === undefined) transaction.lrange(eventsKey, afterVersion, -1);
    else if (limit > 0) transaction.lrange(eventsKey, -limit, -1);
    const replies = await transaction.exec();
    if (replies === null) throw new Error('Redis discarded the read transaction of the session store');
    for (const [error] of replies) if (error) throw error;
    const meta = replies[0]![1] as Record<string, string>;
    if (meta.version === undefined) return undefined;
    const version = Number(meta.version);
    const texts = (replies[2]?.[1] ?? []) as string[];
    // The last `limit` events may reach back to or before `afterVersion`; those are not asked for.
    const skip = Math.max(0, afterVersion - (version - texts.length));
    const events = new Array<SessionEvent>(Math.max(0, texts.length - skip));
    for (let index = 0; index < events.length; index += 1)
      events[index] = JSON.parse(texts[skip + index]!) as SessionEvent;
    return sessionOfParts(
      normalized,
      version,
      Number(meta.createdAt),
      Number(meta.updatedAt),
      // ioredis builds the object with own properties, "__proto__" included.
      replies[1]![1] as Record<string, string>,
      events,
    );
  }

  async appendEvents(
    key: SessionKey,
    events: NewSessionEvent[],
    options: AppendEventsOptions,
  ): Promise<AppendEventsResult> {
    this.#checkOpen();
    const normalized = normalizeKey(key);
    const expectedVersion = checkExpectedVersion(options?.expectedVersion);
    const prepared = prepareEvents(events, expectedVersion);
    const changes: string[] = [];
    for (const [name, value] of netDelta(prepared)) changes.push(value === null ? 'd' : 's', name, value ?? '');
    const result = (await this.#run('appendEvents', this.#keys(normalized), [
      expectedVersion,
      Date.now(),
      normalized.sessionId,
      prepared.length,
      ...prepared.map(({ json }) => json),
      ...changes,
    ])) as number[];
    if (result[0] === -1) throw new SessionNotFoundError(normalized);
    if (result[0] === -2) throw new SessionConflictError(normalized, expectedVersion, result[1] ?? Number.NaN);
    return { version: result[0] ?? Number.NaN, events: prepared.map(({ event }) => event) };
  }

  async listSessions(userId: string, options?: ListSessionsOptions): Promise<SessionSummary[]> {
    this.#checkOpen();
    checkId(userId, 'userId');
    const appName = checkAppName(options?.appName);
    const sessionIds = await this.#client.zrange(this.#userIndexKey(appName, userId), 0, -1);
    if (sessionIds.length === 0) return [];
    const pipeline = this.#client.pipeline();
    for (const sessionId of sessionIds) pipeline.hgetall(this.#keys({ appName, userId, sessionId })[0]);
    const metas = (await pipeline.exec()) ?? [];
    const summaries: SessionSummary[] = [];
    metas.forEach(([error, meta], index) => {
      if (error) throw error;
      const fields = meta as Record<string, string>;
      // A session deleted between the two reads has no metadata any more; it is simply gone.
      if (fields.version === undefined) return;
      summaries.push({
        appName,
        userId,
        sessionId: sessionIds[index]!,
        version: Number(fields.version),
        createdAt: Number(fields.createdAt),
        updatedAt: Number(fields.updatedAt),
      });
    });
    return sortSummaries(summaries);
  }

  async deleteSession(key: SessionKey): Promise<boolean> {
    this.#checkOpen();
    const normalized = normalizeKey(key);
    return (await this.#run('deleteSession', this.#keys(normalized), [normalized.sessionId])) === 1;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsClient) await this.#client.quit();
  }

  #checkOpen(): void {
    if (this.#closed) throw new SessionStoreClosedError(`RedisSessionStore (prefix "${this.keyPrefix}")`);
  }

  #userIndexKey(appName: string, userId: string): string {
    return `${this.#userTag(appName, userId)}:sessions`;
  }

  #userTag(appName: string, userId: string): string {
    return `${this.keyPrefix}{${encodeURIComponent(appName)}:${encodeURIComponent(userId)}}`;
  }

  #keys(key: NormalizedSessionKey): readonly [string, string, string, string] {
    const last = this.#lastKeys;
    if (key.sessionId === last.sessionId && key.userId === last.userId && key.appName === last.appName)
      return last.keys;
    const tag = this.#userTag(key.appName, key.userId);
    const base = `${tag}:session:${encodeURIComponent(key.sessionId)}`;
    const keys = [`${base}:meta`, `${base}:events`, `${base}:state`, `${tag}:sessions`] as const;
    this.#lastKeys = { appName: key.appName, userId: key.userId, sessionId: key.sessionId, keys };
    return keys;
  }

  /**
   * The keys of the session asked for last, handed out again for the same ids: a runner reads and
   * appends to one session turn after turn, and encoding its three ids into four keys each time
   * was about 0.7 µs of a read that the bare driver, holding its keys, does not spend.
   */
  #lastKeys: { appName: string; userId: string; sessionId: string; keys: readonly [string, string, string, string] } = {
    appName: '',
    userId: '',
    sessionId: '',
    keys: ['', '', '', ''],
  };

  async #run(name: keyof typeof scriptSources, keys: readonly string[], argv: (string | number)[]): Promise<unknown> {
    const sha = this.#scripts.get(name)!;
    try {
      return await this.#client.evalsha(sha, keys.length, ...keys, ...argv);
    } catch (error) {
      // A server restart or SCRIPT FLUSH forgets loaded scripts; send the source once and go on.
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return this.#client.eval(scriptSources[name], keys.length, ...keys, ...argv);
    }
  }
}

/** Opens a Redis session store and checks its schema version. */
export function openRedisSessionStore(options: RedisSessionStoreOptions): Promise<RedisSessionStore> {
  return RedisSessionStore.open(options);
}

/** The combined effect of several deltas applied in order: later writes of a key win. */
function netDelta(prepared: readonly PreparedEvent[]): Map<string, string | null> {
  // A Map, not an object: a key named "__proto__" is a key like any other.
  const net = new Map<string, string | null>();
  for (const { event } of prepared) {
    if (event.stateDelta === undefined) continue;
    for (const name in event.stateDelta) net.set(name, event.stateDelta[name]!);
  }
  return net;
}
