import { randomUUID } from 'node:crypto';
import type { StateDelta } from '../state/state-delta.js';
import { SessionInputError } from './session-errors.js';
import type { GetSessionOptions, NewSessionEvent, SessionEvent, SessionKey, SessionSummary } from './session-store.js';

/**
 * Argument checks and event preparation shared by every store, so the stores differ only in how
 * they persist and every one refuses the same bad input with the same error before touching data.
 */

export const defaultAppName = 'default';
const maxIdLength = 256;
// Control characters would break line-oriented tools and key encodings; nothing legitimate needs them in an id.
const controlCharacter = /[\u0000-\u001f\u007f]/;
// A lone UTF-16 surrogate has no UTF-8 form: Redis and the SQL drivers would store U+FFFD instead.
const loneSurrogate = /\p{Cs}/u;

export type NormalizedSessionKey = Required<SessionKey>;

export function checkId(value: unknown, argument: string): string {
  if (typeof value !== 'string') throw new SessionInputError(argument, `must be a string, got ${typeof value}`);
  if (value.trim() === '') throw new SessionInputError(argument, 'must not be empty');
  if (value.length > maxIdLength)
    throw new SessionInputError(argument, `must be at most ${maxIdLength} characters, got ${value.length}`);
  if (controlCharacter.test(value)) throw new SessionInputError(argument, 'must not contain control characters');
  checkWellFormed(value, argument);
  return value;
}

function checkWellFormed(value: string, argument: string): void {
  if (loneSurrogate.test(value))
    throw new SessionInputError(argument, 'holds a lone UTF-16 surrogate, which is not valid Unicode text');
}

export function normalizeKey(key: SessionKey): NormalizedSessionKey {
  if (typeof key !== 'object' || key === null)
    throw new SessionInputError('key', 'must be an object { appName?, userId, sessionId }');
  return {
    appName: key.appName === undefined ? defaultAppName : checkId(key.appName, 'key.appName'),
    userId: checkId(key.userId, 'key.userId'),
    sessionId: checkId(key.sessionId, 'key.sessionId'),
  };
}

export function checkAppName(appName: string | undefined): string {
  return appName === undefined ? defaultAppName : checkId(appName, 'options.appName');
}

export function checkExpectedVersion(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new SessionInputError(
      'options.expectedVersion',
      `must be a non-negative integer (the version read from the session), got ${String(value)}`,
    );
  }
  return value;
}

export function checkGetOptions(options: GetSessionOptions | undefined): {
  afterVersion: number;
  limit: number | undefined;
} {
  const afterVersion = options?.afterVersion ?? 0;
  if (!Number.isSafeInteger(afterVersion) || afterVersion < 0) {
    throw new SessionInputError('options.afterVersion', `must be a non-negative integer, got ${String(afterVersion)}`);
  }
  const limit = options?.limit;
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
    throw new SessionInputError('options.limit', `must be a non-negative integer, got ${String(limit)}`);
  }
  return { afterVersion, limit };
}

function checkStateKey(key: string, argument: string): void {
  if (key === '') throw new SessionInputError(argument, 'state keys must not be empty');
  checkWellFormed(key, `${argument}[${JSON.stringify(key)}]`);
}

export function checkInitialState(state: unknown): Record<string, string> {
  if (state === undefined) return {};
  if (!isPlainObject(state)) throw new SessionInputError('options.state', 'must be an object of string values');
  const copy: Record<string, string> = {};
  for (const [key, value] of Object.entries(state)) {
    checkStateKey(key, 'options.state');
    if (typeof value !== 'string')
      throw new SessionInputError(`options.state[${JSON.stringify(key)}]`, `must be a string, got ${describe(value)}`);
    checkWellFormed(value, `options.state[${JSON.stringify(key)}]`);
    copy[key] = value;
  }
  return copy;
}

function checkStateDelta(delta: unknown, argument: string): StateDelta {
  if (!isPlainObject(delta)) throw new SessionInputError(argument, 'must be an object of string or null values');
  for (const [key, value] of Object.entries(delta)) {
    checkStateKey(key, argument);
    if (typeof value !== 'string' && value !== null) {
      throw new SessionInputError(
        `${argument}[${JSON.stringify(key)}]`,
        `must be a string or null (null deletes the key), got ${describe(value)}`,
      );
    }
    if (value !== null) checkWellFormed(value, `${argument}[${JSON.stringify(key)}]`);
  }
  return delta as StateDelta;
}

/** Applies one delta in place; `null` deletes. */
export function applyStateDelta(state: Record<string, string>, delta: StateDelta | undefined): void {
  if (delta === undefined) return;
  for (const [key, value] of Object.entries(delta)) {
    if (value === null) delete state[key];
    else state[key] = value;
  }
}

export interface PreparedEvent {
  event: SessionEvent;
  /** The event as stored by durable stores: JSON text including its version. */
  json: string;
}

const eventFields = new Set(['id', 'author', 'type', 'timestamp', 'content', 'stateDelta', 'usage', 'metadata']);

/**
 * Checks every event before any is written (a bad third event must not leave the first two behind)
 * and gives each its id, timestamp and version, starting after `currentVersion`.
 */
export function prepareEvents(events: unknown, currentVersion: number, now: number = Date.now()): PreparedEvent[] {
  if (!Array.isArray(events)) throw new SessionInputError('events', 'must be an array of events');
  if (events.length === 0) throw new SessionInputError('events', 'must hold at least one event');
  return events.map((input: unknown, index) => {
    const at = `events[${index}]`;
    if (!isPlainObject(input))
      throw new SessionInputError(at, 'must be an object { author, type, content?, stateDelta?, ... }');
    for (const field of Object.keys(input)) {
      if (!eventFields.has(field) && input[field] !== undefined) {
        throw new SessionInputError(
          `${at}.${field}`,
          `is not an event field (known: ${[...eventFields].join(', ')}); put extra data in metadata`,
        );
      }
    }
    const raw = input as unknown as NewSessionEvent;
    const id = raw.id === undefined ? randomUUID() : checkId(raw.id, `${at}.id`);
    const author = checkId(raw.author, `${at}.author`);
    const type = checkId(raw.type, `${at}.type`);
    const timestamp = raw.timestamp ?? now;
    if (typeof timestamp !== 'number' || !Number.isFinite(timestamp)) {
      throw new SessionInputError(
        `${at}.timestamp`,
        `must be a finite number of milliseconds since the epoch, got ${String(timestamp)}`,
      );
    }
    const event: SessionEvent = { version: currentVersion + index + 1, id, author, type, timestamp };
    if (raw.content !== undefined) {
      checkJson(raw.content, `${at}.content`);
      event.content = raw.content;
    }
    if (raw.stateDelta !== undefined) event.stateDelta = checkStateDelta(raw.stateDelta, `${at}.stateDelta`);
    if (raw.usage !== undefined) {
      if (!isPlainObject(raw.usage)) throw new SessionInputError(`${at}.usage`, 'must be an object of token counts');
      for (const [name, count] of Object.entries(raw.usage)) {
        if (count !== undefined && (typeof count !== 'number' || !Number.isFinite(count))) {
          throw new SessionInputError(`${at}.usage.${name}`, `must be a finite number, got ${describe(count)}`);
        }
      }
      event.usage = raw.usage;
    }
    if (raw.metadata !== undefined) {
      if (!isPlainObject(raw.metadata)) throw new SessionInputError(`${at}.metadata`, 'must be an object');
      checkJson(raw.metadata, `${at}.metadata`);
      event.metadata = raw.metadata;
    }
    const json = JSON.stringify(event);
    // Returned events are the stored form, so a caller mutating its input later changes nothing stored.
    return { event: JSON.parse(json) as SessionEvent, json };
  });
}

/**
 * Refuses what JSON.stringify would silently drop or change (a Uint8Array becomes an object of
 * indexes, NaN becomes null, a Date becomes a string), naming the exact path. `undefined` object
 * properties are fine: they are simply absent, as the AI SDK's optional fields are. Every append
 * walks its events, so the walk allocates nothing on the way (no entry arrays, no path strings)
 * and works out the path only for the error.
 */
function checkJson(value: unknown, path: string): void {
  const ancestors: object[] = [];
  const steps: (string | number)[] = [];
  const at = () => path + steps.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('');
  const walk = (item: unknown): void => {
    switch (typeof item) {
      case 'string':
      case 'boolean':
        return;
      case 'number':
        if (!Number.isFinite(item)) throw new SessionInputError(at(), `${item} is not representable in JSON`);
        return;
      case 'object': {
        if (item === null) return;
        if (ancestors.includes(item))
          throw new SessionInputError(at(), 'refers back to itself (a cycle); JSON cannot hold it');
        ancestors.push(item);
        if (Array.isArray(item)) {
          for (let index = 0; index < item.length; index += 1) {
            steps.push(index);
            if (item[index] === undefined)
              throw new SessionInputError(at(), 'is undefined; JSON would turn it into null');
            walk(item[index]);
            steps.pop();
          }
        } else if (isPlainObject(item)) {
          for (const name in item) {
            if (!Object.hasOwn(item, name) || item[name] === undefined) continue;
            steps.push(name);
            walk(item[name]);
            steps.pop();
          }
        } else {
          const kind = (item as object).constructor?.name ?? 'object';
          throw new SessionInputError(
            at(),
            `a ${kind} is not plain JSON; convert it first (binary data to a base64 string, dates to ISO strings)`,
          );
        }
        ancestors.pop();
        return;
      }
      default:
        throw new SessionInputError(at(), `a ${typeof item} is not representable in JSON`);
    }
  };
  walk(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/** Picks the tail of an ordered event list that `getSession` options ask for. */
export function selectEvents<T extends { version: number }>(
  events: T[],
  afterVersion: number,
  limit: number | undefined,
): T[] {
  const after = events.filter((event) => event.version > afterVersion);
  return limit === undefined ? after : limit === 0 ? [] : after.slice(-limit);
}

/** Most recently updated first; ties by session id so the order is stable. */
export function sortSummaries(summaries: SessionSummary[]): SessionSummary[] {
  return summaries.sort(
    (a, b) => b.updatedAt - a.updatedAt || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0),
  );
}
