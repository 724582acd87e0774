import type { StateDelta } from '../state/state-delta.js';

/**
 * Where one conversation lives. `appName` separates applications sharing one backend; it defaults
 * to `"default"`. Ids are non-empty strings of at most 256 characters without control characters.
 */
export interface SessionKey {
  appName?: string;
  userId: string;
  sessionId: string;
}

/** Token counts of a model call, as the runner reports them. */
export interface SessionEventUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  [name: string]: number | undefined;
}

/**
 * What a caller appends. Everything except `author` and `type` is optional; the store assigns an
 * `id` (a random UUID) and a `timestamp` (milliseconds since the epoch) when they are missing.
 *
 * `content` is any JSON value: for the AI SDK runner, a `ModelMessage` (user message, assistant
 * message with tool calls, tool message with results). It is stored as JSON text, so binary parts
 * must be encoded first (base64 strings); the store refuses values JSON would silently change.
 */
export interface NewSessionEvent {
  id?: string;
  /** Who produced it: `"user"`, an agent name, `"system"`. */
  author: string;
  /** What it is, free-form: `"message"`, `"tool-call"`, `"tool-result"`, `"state"`, ... */
  type: string;
  timestamp?: number;
  content?: unknown;
  /** Applied to the session state in the same atomic step as the append. */
  stateDelta?: StateDelta;
  usage?: SessionEventUsage;
  /** Anything else a caller wants kept with the event (JSON). */
  metadata?: Record<string, unknown>;
}

/** An event as stored: `version` is its 1-based position in the session (the session version right after it). */
export interface SessionEvent extends NewSessionEvent {
  id: string;
  timestamp: number;
  version: number;
}

/** A session's identity, version and timestamps, without its events and state. */
export interface SessionSummary {
  appName: string;
  userId: string;
  sessionId: string;
  /** Number of events appended so far; 0 for a new session. */
  version: number;
  createdAt: number;
  updatedAt: number;
}

/** A session with its state and (the latest of) its events. */
export interface Session extends SessionSummary {
  /** The state after every event up to `version`. */
  state: Record<string, string>;
  /** Ordered by version; all of them unless `getSession` was asked for a tail. */
  events: SessionEvent[];
}

/** Options of `SessionStore.createSession`: the initial state. */
export interface CreateSessionOptions {
  /** Initial state (not an event: the session starts at version 0 with it). */
  state?: Record<string, string>;
}

/** Options of `SessionStore.getSession`: only the events after a version, and at most `limit` of them. */
export interface GetSessionOptions {
  /** Only events with a version greater than this. */
  afterVersion?: number;
  /** At most this many events, the most recent ones. */
  limit?: number;
}

/** Options of `SessionStore.appendEvents`: the version the caller read, for optimistic concurrency. */
export interface AppendEventsOptions {
  /** The version the caller read; the append fails with SessionConflictError when the session moved on. */
  expectedVersion: number;
}

/** What `SessionStore.appendEvents` stored: the events as stored and the new session version. */
export interface AppendEventsResult {
  /** The session version after the append. */
  version: number;
  /** The appended events as stored (ids, timestamps and versions filled in). */
  events: SessionEvent[];
}

/** Options of `SessionStore.listSessions`: the app whose sessions are listed. */
export interface ListSessionsOptions {
  /** Defaults to `"default"`. */
  appName?: string;
}

/**
 * Persistent conversations: an append-only log of events plus a small string state, changed only
 * by the state deltas carried in events. Every implementation passes the same conformance suite
 * (`describeSessionStoreConformance`).
 */
export interface SessionStore {
  /** Throws SessionExistsError when the session is already there. */
  createSession(key: SessionKey, options?: CreateSessionOptions): Promise<Session>;
  /** `undefined` when there is no such session. */
  getSession(key: SessionKey, options?: GetSessionOptions): Promise<Session | undefined>;
  /**
   * Appends the events and applies their state deltas, in order, as one atomic step. Throws
   * SessionNotFoundError for an unknown session and SessionConflictError when the session is not at
   * `expectedVersion`; in both cases nothing is written.
   */
  appendEvents(key: SessionKey, events: NewSessionEvent[], options: AppendEventsOptions): Promise<AppendEventsResult>;
  /** The user's sessions in one app, most recently updated first. */
  listSessions(userId: string, options?: ListSessionsOptions): Promise<SessionSummary[]>;
  /** Removes the session with its events and state; `false` when it did not exist. */
  deleteSession(key: SessionKey): Promise<boolean>;
  /** Releases connections and files. Calls after close throw SessionStoreClosedError. */
  close(): Promise<void>;
}
