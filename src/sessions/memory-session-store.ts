import {
  SessionConflictError,
  SessionExistsError,
  SessionNotFoundError,
  SessionStoreClosedError,
} from './session-errors.js';
import {
  applyStateDelta,
  checkAppName,
  checkExpectedVersion,
  checkGetOptions,
  checkId,
  checkInitialState,
  normalizeKey,
  prepareEvents,
  selectEvents,
  sortSummaries,
} from './session-input.js';
import { sessionOfParts } from './session-of-parts.js';
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
} from './session-store.js';

interface StoredSession {
  summary: SessionSummary;
  state: Record<string, string>;
  // JSON text, as the durable stores keep it: reads parse fresh copies (faster than structuredClone).
  events: { version: number; json: string }[];
}

/**
 * Sessions in this process's memory: for tests, scripts and single-process agents that do not need
 * the conversation after exit. Everything it hands out is a copy, so callers cannot change stored
 * data by mutating results, just as with the durable stores.
 */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, StoredSession>();
  #closed = false;

  async createSession(key: SessionKey, options?: CreateSessionOptions): Promise<Session> {
    this.#checkOpen();
    const normalized = normalizeKey(key);
    const state = checkInitialState(options?.state);
    const id = mapKey(normalized);
    if (this.#sessions.has(id)) throw new SessionExistsError(normalized);
    const now = Date.now();
    const stored: StoredSession = {
      summary: { ...normalized, version: 0, createdAt: now, updatedAt: now },
      state,
      events: [],
    };
    this.#sessions.set(id, stored);
    return copySession(stored, stored.events);
  }

  async getSession(key: SessionKey, options?: GetSessionOptions): Promise<Session | undefined> {
    this.#checkOpen();
    const normalized = normalizeKey(key);
    const { afterVersion, limit } = checkGetOptions(options);
    const stored = this.#sessions.get(mapKey(normalized));
    return stored === undefined ? undefined : copySession(stored, selectEvents(stored.events, afterVersion, limit));
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
    const stored = this.#sessions.get(mapKey(normalized));
    if (stored === undefined) throw new SessionNotFoundError(normalized);
    if (stored.summary.version !== expectedVersion)
      throw new SessionConflictError(normalized, expectedVersion, stored.summary.version);
    for (const { event, json } of prepared) {
      stored.events.push({ version: event.version, json });
      applyStateDelta(stored.state, event.stateDelta);
    }
    stored.summary.version += prepared.length;
    stored.summary.updatedAt = Date.now();
    return { version: stored.summary.version, events: prepared.map(({ event }) => event) };
  }

  async listSessions(userId: string, options?: ListSessionsOptions): Promise<SessionSummary[]> {
    this.#checkOpen();
    checkId(userId, 'userId');
    const appName = checkAppName(options?.appName);
    const summaries = [...this.#sessions.values()]
      .map(({ summary }) => summary)
      .filter((summary) => summary.userId === userId && summary.appName === appName)
      .map((summary) => ({ ...summary }));
    return sortSummaries(summaries);
  }

  async deleteSession(key: SessionKey): Promise<boolean> {
    this.#checkOpen();
    return this.#sessions.delete(mapKey(normalizeKey(key)));
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#sessions.clear();
  }

  #checkOpen(): void {
    if (this.#closed) throw new SessionStoreClosedError('MemorySessionStore');
  }
}

/** A session store in process memory: for tests, scripts and processes that need no history after exit. */
export function createMemorySessionStore(): MemorySessionStore {
  return new MemorySessionStore();
}

function mapKey(key: Required<SessionKey>): string {
  // JSON keeps the parts apart whatever characters the ids hold.
  return JSON.stringify([key.appName, key.userId, key.sessionId]);
}

function copySession(stored: StoredSession, events: StoredSession['events']): Session {
  const { summary } = stored;
  // Written out rather than `{ ...summary, state, events }`: see session-of-parts.ts.
  return sessionOfParts(
    summary,
    summary.version,
    summary.createdAt,
    summary.updatedAt,
    { ...stored.state },
    events.map(({ json }) => JSON.parse(json) as SessionEvent),
  );
}
