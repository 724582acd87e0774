import type { SessionEvent, SessionStore, SessionSummary } from '../sessions/session-store.js';

/** One thing that happened in a session, as a line of its timeline. */
export interface TimelineItem {
  /** The event's 1-based position in the session. */
  version: number;
  timestamp: number;
  author: string;
  kind: 'user' | 'assistant' | 'tool-call' | 'tool-result' | 'load' | 'unload' | 'state' | 'error' | 'other';
  /** What a person reads first: the text, the tool's name, the skill loaded. */
  title: string;
  /** The rest (a tool's input or output, a state change), as JSON text where it is data. */
  detail?: string;
}

/** A session with its events turned into a timeline. */
export interface SessionView extends SessionSummary {
  timeline: TimelineItem[];
  /** The session's state after its last event. */
  state: Record<string, string>;
}

const loadedKeyPattern = /^temp:skill:loaded_by_agent:[^/]*\/(.+)$/;

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/**
 * A session event as timeline items: a message's parts (text, tool calls, tool results) one by
 * one, a state change as the skills it loaded and unloaded plus the rest of its keys. Content is
 * kept as the store gives it; the page shows every string as text, never as markup.
 */
export function timelineOf(event: SessionEvent): TimelineItem[] {
  const base = { version: event.version, timestamp: event.timestamp, author: event.author };
  const items: TimelineItem[] = [];
  const content = event.content as { role?: unknown; content?: unknown } | undefined;
  if (event.type === 'message' && content !== undefined && typeof content === 'object' && content !== null) {
    const role = content.role;
    const parts = typeof content.content === 'string' ? [{ type: 'text', text: content.content }] : content.content;
    for (const part of Array.isArray(parts) ? (parts as Array<Record<string, unknown>>) : []) {
      if (part.type === 'text' && typeof part.text === 'string') {
        if (part.text.trim() === '') continue;
        items.push({ ...base, kind: role === 'user' ? 'user' : 'assistant', title: part.text });
      } else if (part.type === 'tool-call') {
        items.push({ ...base, kind: 'tool-call', title: String(part.toolName), detail: text(part.input ?? part.args) });
      } else if (part.type === 'tool-result') {
        items.push({
          ...base,
          kind: 'tool-result',
          title: String(part.toolName),
          detail: text(part.output ?? part.result),
        });
      }
    }
  } else if (event.type === 'error') {
    items.push({ ...base, kind: 'error', title: text(event.content ?? 'error') });
  } else if (event.type !== 'state' && event.type !== 'message') {
    items.push({
      ...base,
      kind: 'other',
      title: event.type,
      ...(event.content === undefined ? {} : { detail: text(event.content) }),
    });
  }
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event.stateDelta ?? {})) {
    const loaded = loadedKeyPattern.exec(key);
    if (loaded !== null) items.push({ ...base, kind: value ? 'load' : 'unload', title: loaded[1] as string });
    else rest[key] = value;
  }
  if (Object.keys(rest).length > 0) items.push({ ...base, kind: 'state', title: 'state change', detail: text(rest) });
  return items;
}

/** The sessions of `userId` (in `appName`, default "default"), newest first. */
export async function describeSessions(
  store: SessionStore,
  userId: string,
  appName?: string,
): Promise<SessionSummary[]> {
  const sessions = await store.listSessions(userId, appName === undefined ? {} : { appName });
  return [...sessions].sort((a, b) => b.updatedAt - a.updatedAt);
}

/** One session's timeline, or undefined when there is no such session. Reads only. */
export async function describeSession(
  store: SessionStore,
  key: { appName?: string; userId: string; sessionId: string },
): Promise<SessionView | undefined> {
  const session = await store.getSession(key);
  if (session === undefined) return undefined;
  const { events, state, ...summary } = session;
  return { ...summary, state: { ...state }, timeline: events.flatMap(timelineOf) };
}
