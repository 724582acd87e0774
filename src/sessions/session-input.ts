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

/**
 * Control characters would break line-oriented tools and key encodings; nothing legitimate needs
 * them in an id. A loop over the code units rather than a regular expression: an append checks
 * four ids (two of the key, the event's author and type), and the regular expression took twice
 * as long on such short strings.
 */
function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** `String.prototype.isWellFormed` (Node 20), which the ES2023 library types do not name yet. */
interface WellFormedCheck {
  isWellFormed(): boolean;
}

/**
 * A lone UTF-16 surrogate has no UTF-8 form: Redis and the SQL drivers would store U+FFFD instead.
 * `isWellFormed` answers exactly that, natively, several times faster than matching `\p{Cs}`; an
 * append asks it of four ids and of every key and value of its state delta.
 */
function hasLoneSurrogate(value: string): boolean {
  return !(value as unknown as WellFormedCheck).isWellFormed();
}

export type NormalizedSessionKey = Required<SessionKey>;

export function checkId(value: unknown, argument: string): string {
  const problem = idProblem(value);
  if (problem !== undefined) throw new SessionInputError(argument, problem);
  return value as string;
}

/** What is wrong with an id, if anything: the caller names the argument only when there is a problem. */
function idProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `must be a string, got ${typeof value}`;
  if (value.trim() === '') return 'must not be empty';
  if (value.length > maxIdLength) return `must be at most ${maxIdLength} characters, got ${value.length}`;
  if (hasControlCharacter(value)) return 'must not contain control characters';
  if (hasLoneSurrogate(value)) return 'holds a lone UTF-16 surrogate, which is not valid Unicode text';
  return undefined;
}

function checkWellFormed(value: string, argument: string): void {
  if (hasLoneSurrogate(value))
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
  // The argument's name is built only for the error: this runs for every key of every append.
  if (hasLoneSurrogate(key)) checkWellFormed(key, `${argument}[${JSON.stringify(key)}]`);
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
    setOwn(copy, key, value);
  }
  return copy;
}

function checkStateDelta(delta: unknown, index: number): StateDelta {
  if (!isPlainObject(delta))
    throw new SessionInputError(eventArgument(index, 'stateDelta'), 'must be an object of string or null values');
  // A copy, built while checking: the stored event must not change when the caller's object does.
  const copy: StateDelta = {};
  // for...in with an own-property check gives Object.entries' keys in its order, without the array
  // of pairs it makes: a tenth of preparing a typical event went to the two such calls here.
  for (const key in delta) {
    if (!Object.hasOwn(delta, key)) continue;
    const value = delta[key];
    if (key === '' || hasLoneSurrogate(key)) checkStateKey(key, eventArgument(index, 'stateDelta'));
    if (typeof value !== 'string' && value !== null) {
      throw new SessionInputError(
        `${eventArgument(index, 'stateDelta')}[${JSON.stringify(key)}]`,
        `must be a string or null (null deletes the key), got ${describe(value)}`,
      );
    }
    if (value !== null && hasLoneSurrogate(value))
      checkWellFormed(value, `${eventArgument(index, 'stateDelta')}[${JSON.stringify(key)}]`);
    setOwn(copy, key, value);
  }
  return copy;
}

/**
 * `events[2]` or `events[2].author`, for an error. Built only when one is thrown: an append checks
 * several fields of every event, and naming each up front made a string per field per event.
 */
function eventArgument(index: number, field?: string): string {
  return field === undefined ? `events[${index}]` : `events[${index}].${field}`;
}

function checkEventId(value: unknown, index: number, field: string): string {
  const problem = idProblem(value);
  if (problem !== undefined) throw new SessionInputError(eventArgument(index, field), problem);
  return value as string;
}

/** Applies one delta in place; `null` deletes. */
export function applyStateDelta(state: Record<string, string>, delta: StateDelta | undefined): void {
  if (delta === undefined) return;
  // A checked delta: a plain object of own properties.
  for (const key in delta) {
    const value = delta[key]!;
    if (value === null) delete state[key];
    else setOwn(state, key, value);
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
  const prepared = new Array<PreparedEvent>(events.length);
  for (let index = 0; index < events.length; index += 1)
    prepared[index] = prepareEvent(events[index], index, currentVersion + index + 1, now);
  return prepared;
}

/**
 * One event, checked and copied in a single walk. Returned events are the stored form, so a
 * caller mutating its input later changes nothing stored; the copy is built while checking
 * rather than by a JSON round trip, which on an append of a typical message was the larger part
 * of the store's own time (see bench/sessions.bench.ts).
 */
function prepareEvent(input: unknown, index: number, version: number, now: number): PreparedEvent {
  if (!isPlainObject(input))
    throw new SessionInputError(eventArgument(index), 'must be an object { author, type, content?, stateDelta?, ... }');
  for (const field in input) {
    // The set first: every field of a valid event is in it, so the own-property check runs only for a bad one.
    if (!eventFields.has(field) && Object.hasOwn(input, field) && input[field] !== undefined) {
      throw new SessionInputError(
        eventArgument(index, field),
        `is not an event field (known: ${[...eventFields].join(', ')}); put extra data in metadata`,
      );
    }
  }
  const raw = input as unknown as NewSessionEvent;
  const id = raw.id === undefined ? randomUUID() : checkEventId(raw.id, index, 'id');
  const author = checkEventId(raw.author, index, 'author');
  const type = checkEventId(raw.type, index, 'type');
  const timestamp = raw.timestamp ?? now;
  if (typeof timestamp !== 'number' || !Number.isFinite(timestamp)) {
    throw new SessionInputError(
      eventArgument(index, 'timestamp'),
      `must be a finite number of milliseconds since the epoch, got ${String(timestamp)}`,
    );
  }
  const event: SessionEvent = { version, id, author, type, timestamp };
  if (raw.content !== undefined) event.content = copyJson(raw.content, index, 'content');
  if (raw.stateDelta !== undefined) event.stateDelta = checkStateDelta(raw.stateDelta, index);
  if (raw.usage !== undefined) {
    if (!isPlainObject(raw.usage))
      throw new SessionInputError(eventArgument(index, 'usage'), 'must be an object of token counts');
    const usage: Record<string, number> = {};
    for (const name in raw.usage) {
      const count = raw.usage[name];
      if (count === undefined || !Object.hasOwn(raw.usage, name)) continue;
      if (typeof count !== 'number' || !Number.isFinite(count))
        throw new SessionInputError(
          eventArgument(index, `usage.${name}`),
          `must be a finite number, got ${describe(count)}`,
        );
      setOwn(usage, name, count);
    }
    event.usage = usage as SessionEvent['usage'];
  }
  if (raw.metadata !== undefined) {
    if (!isPlainObject(raw.metadata))
      throw new SessionInputError(eventArgument(index, 'metadata'), 'must be an object');
    event.metadata = copyJson(raw.metadata, index, 'metadata') as SessionEvent['metadata'];
  }
  return { event, json: JSON.stringify(event) };
}

/** Where a JSON walk is: the objects above the current value (for cycles) and the steps to it (for errors). */
interface JsonWalk {
  /** The event's index and field (`content` or `metadata`) the walk started from. */
  readonly index: number;
  readonly field: string;
  readonly ancestors: object[];
  readonly steps: (string | number)[];
}

/**
 * A deep copy of `value` as JSON would give it back, refusing what JSON.stringify would silently
 * drop or change (a Uint8Array becomes an object of indexes, NaN becomes null, a Date becomes a
 * string), naming the exact path. `undefined` object properties are fine: they are simply
 * absent, as the AI SDK's optional fields are. Every append walks its events, so the walk is
 * plain module functions (no closures made per call) and works out the path only for an error.
 */
function copyJson(value: unknown, index: number, field: string): unknown {
  try {
    return copyJsonFast(value, 0);
  } catch (error) {
    if (error !== walkCarefully) throw error;
  }
  return copyJsonValue(value, { index, field, ancestors: [], steps: [] });
}

/**
 * Thrown by the fast walk at anything it leaves to the careful one: a value to refuse, or a depth
 * only a cycle (or unusually deep JSON) reaches. A constant, not an Error: nothing reads its stack.
 */
const walkCarefully = new Error('copyJsonFast leaves this value to copyJsonValue');
const fastWalkDepth = 64;

/**
 * The copy of valid JSON, without the bookkeeping that only an error needs: the careful walk
 * (`copyJsonValue`) keeps the objects above the current value, to find a cycle, and the steps to
 * it, to name the path; three arrays made and grown on every append, a fifth of what the store
 * allocated beyond the bare driver (bench/sessions.bench.ts). Here a depth counter stands in for
 * both: a cycle runs past `fastWalkDepth`, and at that depth or at any value it would refuse, the
 * whole value is walked again carefully, which finds the cycle or the bad value and names its
 * path. Only bad or very deep input is walked twice (a getter in it runs twice).
 */
function copyJsonFast(item: unknown, depth: number): unknown {
  switch (typeof item) {
    case 'string':
    case 'boolean':
      return item;
    case 'number':
      if (!Number.isFinite(item)) throw walkCarefully;
      return item === 0 ? 0 : item;
    case 'object': {
      if (item === null) return null;
      if (depth === fastWalkDepth) throw walkCarefully;
      if (Array.isArray(item)) {
        // Made at its final length: a first push gives an array room for 17 elements.
        const copy = new Array<unknown>(item.length);
        for (let index = 0; index < item.length; index += 1) {
          const element: unknown = item[index];
          if (typeof element === 'string' || typeof element === 'boolean' || element === null) copy[index] = element;
          else if (element === undefined) throw walkCarefully;
          else copy[index] = copyJsonFast(element, depth + 1);
        }
        return copy;
      }
      if (!isPlainObject(item)) throw walkCarefully;
      const copy: Record<string, unknown> = {};
      for (const name in item) {
        const property = item[name];
        if (property === undefined || !Object.hasOwn(item, name)) continue;
        if (typeof property === 'string' || typeof property === 'boolean' || property === null)
          setOwn(copy, name, property);
        else setOwn(copy, name, copyJsonFast(property, depth + 1));
      }
      return copy;
    }
    default:
      throw walkCarefully;
  }
}

function copyJsonValue(item: unknown, walk: JsonWalk): unknown {
  switch (typeof item) {
    case 'string':
    case 'boolean':
      return item;
    case 'number':
      if (!Number.isFinite(item)) throw new SessionInputError(walkPath(walk), `${item} is not representable in JSON`);
      // JSON has no negative zero.
      return item === 0 ? 0 : item;
    case 'object': {
      if (item === null) return null;
      if (walk.ancestors.includes(item))
        throw new SessionInputError(walkPath(walk), 'refers back to itself (a cycle); JSON cannot hold it');
      walk.ancestors.push(item);
      let copy: unknown[] | Record<string, unknown>;
      if (Array.isArray(item)) {
        copy = [];
        for (let index = 0; index < item.length; index += 1) {
          const element: unknown = item[index];
          // Strings, booleans and null are copied in place, without a step in and out of the walk.
          if (typeof element === 'string' || typeof element === 'boolean' || element === null) {
            copy.push(element);
            continue;
          }
          walk.steps.push(index);
          if (element === undefined)
            throw new SessionInputError(walkPath(walk), 'is undefined; JSON would turn it into null');
          copy.push(copyJsonValue(element, walk));
          walk.steps.pop();
        }
      } else if (isPlainObject(item)) {
        copy = {};
        for (const name in item) {
          const property = item[name];
          if (property === undefined || !Object.hasOwn(item, name)) continue;
          if (typeof property === 'string' || typeof property === 'boolean' || property === null)
            setOwn(copy, name, property);
          else {
            walk.steps.push(name);
            setOwn(copy, name, copyJsonValue(property, walk));
            walk.steps.pop();
          }
        }
      } else {
        const kind = (item as object).constructor?.name ?? 'object';
        throw new SessionInputError(
          walkPath(walk),
          `a ${kind} is not plain JSON; convert it first (binary data to a base64 string, dates to ISO strings)`,
        );
      }
      walk.ancestors.pop();
      return copy;
    }
    default:
      throw new SessionInputError(walkPath(walk), `a ${typeof item} is not representable in JSON`);
  }
}

function walkPath(walk: JsonWalk): string {
  let path = eventArgument(walk.index, walk.field);
  for (const step of walk.steps) path += typeof step === 'number' ? `[${step}]` : `.${step}`;
  return path;
}

/** Sets a property as JSON.parse would: a key named `__proto__` becomes an own property, not the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
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
