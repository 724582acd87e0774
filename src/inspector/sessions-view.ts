import type { SessionEvent, SessionStore, SessionSummary } from '../sessions/session-store.js';
import type { RunView, SessionView, TimelineItem } from './inspector-views.js';

const runTools = new Set(['skill_run', 'workspace_exec']);

/** A tool result's value as the AI SDK stores it (`{ type: 'json', value }`, or text holding JSON), else undefined. */
function resultValue(output: unknown): unknown {
  if (typeof output !== 'object' || output === null) return output;
  const { type, value } = output as { type?: unknown; value?: unknown };
  if (type === 'json') return value;
  if ((type === 'text' || type === 'error-text') && typeof value === 'string') {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return output;
}

function messageParts(event: SessionEvent): Array<Record<string, unknown>> {
  const content = event.content as { content?: unknown } | undefined;
  if (event.type !== 'message' || typeof content !== 'object' || content === null) return [];
  return Array.isArray(content.content) ? (content.content as Array<Record<string, unknown>>) : [];
}

/** The commands a session's `skill_run` and `workspace_exec` calls ran, each with what its result says. */
export function runsOf(events: readonly SessionEvent[]): RunView[] {
  const calls = new Map<string, Record<string, unknown>>();
  const runs: RunView[] = [];
  for (const event of events) {
    for (const part of messageParts(event)) {
      if (!runTools.has(String(part.toolName))) continue;
      if (part.type === 'tool-call')
        calls.set(String(part.toolCallId), (part.input ?? part.args ?? {}) as Record<string, unknown>);
      if (part.type !== 'tool-result') continue;
      const input = calls.get(String(part.toolCallId)) ?? {};
      const value = resultValue(part.output ?? part.result);
      const result = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
      const files = Array.isArray(result.output_files) ? (result.output_files as Array<Record<string, unknown>>) : [];
      runs.push({
        version: event.version,
        tool: String(part.toolName),
        ...(typeof input.skill === 'string' ? { skill: input.skill } : {}),
        command: typeof input.command === 'string' ? input.command : '',
        ...(typeof result.exit_code === 'number' ? { exitCode: result.exit_code } : {}),
        ...(typeof result.timed_out === 'boolean' ? { timedOut: result.timed_out } : {}),
        ...(typeof result.duration_ms === 'number' ? { durationMs: result.duration_ms } : {}),
        ...(typeof result.stdout === 'string' ? { stdout: result.stdout } : {}),
        ...(typeof result.stderr === 'string' ? { stderr: result.stderr } : {}),
        outputFiles: files.map((file) => ({
          name: String(file.name),
          ...(typeof file.mime_type === 'string' ? { mimeType: file.mime_type } : {}),
          ...(typeof file.size_bytes === 'number' ? { sizeBytes: file.size_bytes } : {}),
          ...(typeof file.content === 'string' ? { content: file.content } : {}),
          ...(typeof file.truncated === 'boolean' ? { truncated: file.truncated } : {}),
        })),
        warnings: Array.isArray(result.warnings) ? result.warnings.map(String) : [],
        limitsHit: Array.isArray(result.limits_hit) ? result.limits_hit.map(String) : [],
        ...(typeof value === 'string' ? { error: value } : {}),
      });
    }
  }
  return runs;
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

/**
 * One session's timeline and runs, or undefined when there is no such session. With
 * `afterVersion`, only what came after that event (a page following a live session asks for the
 * rest this way). Reads only.
 */
export async function describeSession(
  store: SessionStore,
  key: { appName?: string; userId: string; sessionId: string },
  afterVersion?: number,
): Promise<SessionView | undefined> {
  const session = await store.getSession(key, afterVersion === undefined ? {} : { afterVersion });
  if (session === undefined) return undefined;
  const { events, state, ...summary } = session;
  return { ...summary, state: { ...state }, timeline: events.flatMap(timelineOf), runs: runsOf(events) };
}
