import type { SessionEvent, SessionStore, SessionSummary } from '../sessions/session-store.js';
import { linkApprovals } from './approval-links.js';
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
        artifactFiles: (Array.isArray(result.artifact_files) ? (result.artifact_files as unknown[]) : []).flatMap(
          (entry) => {
            const { name, version } = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<
              string,
              unknown
            >;
            return typeof name === 'string' && Number.isInteger(version) ? [{ name, version: version as number }] : [];
          },
        ),
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

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Who answered, as `ApprovalSource` names it (approval-types.ts), in words. */
const answeredBy: Record<string, string> = {
  person: 'a person',
  remembered: 'an earlier allow-always of this session',
  'ai-sdk-response': 'the application (AI SDK approval response)',
  'openai-agents-approval': 'the application (OpenAI Agents SDK approval)',
  unanswered: 'nobody: no one could be asked',
  policy: 'policy, before anyone was asked',
};

/** Why a call needed approval, from what an allow-always would remember (`skill:<name>`, `tool:<name>`). */
function whyAsked(remembers: unknown): string {
  const names = Array.isArray(remembers) ? remembers.map(String) : [];
  if (names.length === 0) return 'not said';
  return names
    .map((name) =>
      name.startsWith('skill:')
        ? `skill ${name.slice('skill:'.length)} needs approval`
        : name.startsWith('tool:')
          ? `tool ${name.slice('tool:'.length)} needs approval`
          : name,
    )
    .join('; ');
}

/** An `approval-request` event (its content an `ApprovalRequest`) as a timeline item. */
function approvalRequestItem(base: Omit<TimelineItem, 'kind' | 'title'>, content: unknown): TimelineItem {
  const request = record(content);
  const tool = optionalString(request.tool) ?? 'a tool';
  const skill = optionalString(request.skill);
  const command = optionalString(request.command);
  const toolCallId = optionalString(request.toolCallId);
  const lines = [
    `why: ${whyAsked(request.remembers)}`,
    ...(toolCallId === undefined ? [] : [`call: ${toolCallId}`]),
    ...(command === undefined ? [] : [`command: ${command}`]),
    ...(typeof request.cwd === 'string' ? [`cwd: ${request.cwd}`] : []),
    ...(Array.isArray(request.stagedSkills) && request.stagedSkills.length > 0
      ? [`skills staged: ${request.stagedSkills.map(String).join(', ')}`]
      : []),
    ...(Array.isArray(request.skillsInWorkspace) && request.skillsInWorkspace.length > 0
      ? [`skills already in the workspace: ${request.skillsInWorkspace.map(String).join(', ')}`]
      : []),
    `input: ${text(request.input ?? null)}`,
  ];
  return {
    ...base,
    kind: 'approval-request',
    title: `${tool}${skill === undefined ? '' : ` of skill ${skill}`}${command === undefined ? '' : `: ${command}`}`,
    detail: lines.join('\n'),
    approval: {
      id: `skillbox:${String(request.id ?? '')}`,
      ...(toolCallId === undefined ? {} : { toolCallId }),
    },
  };
}

/** An `approval-decision` event (its content an `ApprovalOutcome`) as a timeline item. */
function approvalDecisionItem(base: Omit<TimelineItem, 'kind' | 'title'>, content: unknown): TimelineItem {
  const outcome = record(content);
  const source = String(outcome.source ?? '');
  const toolCallId = optionalString(outcome.toolCallId);
  const reason = optionalString(outcome.reason);
  const lines = [
    `tool: ${String(outcome.tool ?? '')}`,
    ...(toolCallId === undefined ? [] : [`call: ${toolCallId}`]),
    ...(Array.isArray(outcome.remembers) ? [`covers: ${outcome.remembers.map(String).join(', ')}`] : []),
    ...(reason === undefined ? [] : [`reason: ${reason}`]),
  ];
  return {
    ...base,
    kind: 'approval-decision',
    title: `${String(outcome.decision ?? 'no decision')} by ${answeredBy[source] ?? (source || 'someone not named')}`,
    detail: lines.join('\n'),
    approval: {
      id: `skillbox:${String(outcome.requestId ?? '')}`,
      ...(toolCallId === undefined ? {} : { toolCallId }),
    },
  };
}

/**
 * A session's events as timeline items: a message's parts (text, tool calls, tool results, the AI
 * SDK's tool-approval request and response) one by one, an approval request or decision the runner
 * stored, a state change as the skills it loaded and unloaded plus the rest of its keys. Approval
 * requests are linked to their answers (approval-links.ts). Content is kept as the store gives it;
 * the page shows every string as text, never as markup.
 *
 * `calls` holds the tool calls of earlier events (their name and input by call id): an AI SDK
 * approval request names only its call. Pass the same map for a live session's later events.
 */
export function timelineOf(
  events: readonly SessionEvent[],
  calls: Map<string, { toolName: string; input: unknown }> = new Map(),
): TimelineItem[] {
  return linkApprovals(events.flatMap((event) => eventItems(event, calls)));
}

/**
 * The model request a step's first stored message records (`metadata.request`, written by the AI SDK
 * runner): which skills it held and where they were put. Anything else there is not shown.
 */
function modelRequestItem(
  base: Pick<TimelineItem, 'version' | 'timestamp' | 'author'>,
  request: unknown,
): TimelineItem | undefined {
  if (typeof request !== 'object' || request === null) return undefined;
  const { step, loadedSkills, materialize, tools, inputTokens, cachedInputTokens } = request as Record<string, unknown>;
  if (typeof step !== 'number' || !Array.isArray(loadedSkills)) return undefined;
  const skills = loadedSkills.filter((skill): skill is string => typeof skill === 'string');
  const where = materialize === 'system' ? 'in the system message' : 'as tool results';
  // The provider's own count of the prefix it read from its prompt cache, when it reported one.
  const cached =
    typeof inputTokens === 'number' && inputTokens > 0 && typeof cachedInputTokens === 'number'
      ? `; ${cachedInputTokens} of ${inputTokens} input tokens from the prompt cache (${Math.round((100 * cachedInputTokens) / inputTokens)}%)`
      : '';
  return {
    ...base,
    kind: 'model-request',
    title: `model request, step ${step + 1}: ${skills.length === 0 ? 'no skill loaded' : `${skills.join(', ')} ${where}`}${cached}`,
    detail: text({
      step,
      loadedSkills: skills,
      materialize,
      ...(typeof tools === 'number' ? { tools } : {}),
      ...(typeof inputTokens === 'number' ? { inputTokens } : {}),
      ...(typeof cachedInputTokens === 'number' ? { cachedInputTokens } : {}),
    }),
  };
}

function eventItems(event: SessionEvent, calls: Map<string, { toolName: string; input: unknown }>): TimelineItem[] {
  const base = { version: event.version, timestamp: event.timestamp, author: event.author };
  const items: TimelineItem[] = [];
  const content = event.content as { role?: unknown; content?: unknown } | undefined;
  if (event.type === 'message' && content !== undefined && typeof content === 'object' && content !== null) {
    const request = modelRequestItem(base, event.metadata?.request);
    if (request !== undefined) items.push(request);
    const role = content.role;
    const parts = typeof content.content === 'string' ? [{ type: 'text', text: content.content }] : content.content;
    for (const part of Array.isArray(parts) ? (parts as Array<Record<string, unknown>>) : []) {
      if (part.type === 'text' && typeof part.text === 'string') {
        if (part.text.trim() === '') continue;
        items.push({ ...base, kind: role === 'user' ? 'user' : 'assistant', title: part.text });
      } else if (part.type === 'tool-call') {
        const input = part.input ?? part.args;
        calls.set(String(part.toolCallId), { toolName: String(part.toolName), input });
        items.push({ ...base, kind: 'tool-call', title: String(part.toolName), detail: text(input) });
      } else if (part.type === 'tool-result') {
        items.push({
          ...base,
          kind: 'tool-result',
          title: String(part.toolName),
          detail: text(part.output ?? part.result),
        });
      } else if (part.type === 'tool-approval-request') {
        const toolCallId = optionalString(part.toolCallId);
        const call = toolCallId === undefined ? undefined : calls.get(toolCallId);
        items.push({
          ...base,
          kind: 'approval-request',
          title: `${call?.toolName ?? 'a tool call'} (the AI SDK asks the application)`,
          detail: [
            ...(toolCallId === undefined ? [] : [`call: ${toolCallId}`]),
            `input: ${text(call?.input ?? null)}`,
          ].join('\n'),
          approval: {
            id: `ai-sdk:${String(part.approvalId ?? '')}`,
            ...(toolCallId === undefined ? {} : { toolCallId }),
          },
        });
      } else if (part.type === 'tool-approval-response') {
        const reason = optionalString(part.reason);
        items.push({
          ...base,
          kind: 'approval-decision',
          title: `${part.approved === true ? 'approved' : 'denied'} by the application (AI SDK approval response)`,
          ...(reason === undefined ? {} : { detail: `reason: ${reason}` }),
          approval: { id: `ai-sdk:${String(part.approvalId ?? '')}` },
        });
      }
    }
  } else if (event.type === 'approval-request') {
    items.push(approvalRequestItem(base, event.content));
  } else if (event.type === 'approval-decision') {
    items.push(approvalDecisionItem(base, event.content));
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
  return { ...summary, state: { ...state }, timeline: timelineOf(events), runs: runsOf(events) };
}
