import { SkillboxError } from '../errors.js';
import type { SessionKey } from './session-store.js';

function describeKey(key: SessionKey): string {
  return `session "${key.sessionId}" of user "${key.userId}" in app "${key.appName ?? 'default'}"`;
}

/**
 * Another writer appended to the session after the caller read it. Nothing was written; the caller
 * re-reads the session (its events and state may change what it wants to append) and retries with
 * `actualVersion` as the new expected version.
 */
export class SessionConflictError extends SkillboxError {
  readonly key: SessionKey;
  readonly expectedVersion: number;
  readonly actualVersion: number;

  constructor(key: SessionKey, expectedVersion: number, actualVersion: number) {
    super(
      'SESSION_CONFLICT',
      `${describeKey(key)} is at version ${actualVersion}, not the expected ${expectedVersion}: another writer appended first; re-read the session and retry`,
    );
    this.key = key;
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }
}

export class SessionNotFoundError extends SkillboxError {
  readonly key: SessionKey;

  constructor(key: SessionKey) {
    super('SESSION_NOT_FOUND', `${describeKey(key)} does not exist; create it with createSession first`);
    this.key = key;
  }
}

export class SessionExistsError extends SkillboxError {
  readonly key: SessionKey;

  constructor(key: SessionKey) {
    super('SESSION_EXISTS', `${describeKey(key)} already exists; read it with getSession or pick another id`);
    this.key = key;
  }
}

/** An argument of a store call is malformed (an id, an event, a state delta, an option). Nothing was written. */
export class SessionInputError extends SkillboxError {
  /** Where the bad value is, such as `key.sessionId` or `events[2].stateDelta["a"]`. */
  readonly argument: string;

  constructor(argument: string, problem: string) {
    super('SESSION_INPUT_INVALID', `${argument}: ${problem}`);
    this.argument = argument;
  }
}

/** A store's persisted data cannot be used: written by a newer schema, or corrupted. */
export class SessionStoreSchemaError extends SkillboxError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('SESSION_STORE_SCHEMA', message, options);
  }
}

/** The store was closed; open a new one. */
export class SessionStoreClosedError extends SkillboxError {
  constructor(storeName: string) {
    super('SESSION_STORE_CLOSED', `${storeName} is closed; open a new store`);
  }
}

/** The store's server cannot be reached (refused, timed out, authentication failed). */
export class SessionStoreUnavailableError extends SkillboxError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('SESSION_STORE_UNAVAILABLE', message, options);
  }
}

/**
 * A turn feed was asked for the events after an id it never held (or no longer holds: the feed
 * expired). The client has missed events it cannot get from the feed; it re-reads the session.
 */
export class TurnFeedCursorError extends SkillboxError {
  readonly after: string;

  constructor(turn: string, after: string) {
    super(
      'TURN_FEED_CURSOR_UNKNOWN',
      `after: the feed of ${turn} holds no event "${after}" (it never did, or it expired); read the session instead`,
    );
    this.after = after;
  }
}

/** An event with a new id was published to a turn feed that already ended. */
export class TurnFeedEndedError extends SkillboxError {
  readonly eventId: string;

  constructor(turn: string, eventId: string) {
    super('TURN_FEED_ENDED', `the feed of ${turn} has ended; event "${eventId}" cannot be added to it`);
    this.eventId = eventId;
  }
}
