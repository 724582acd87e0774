import { randomUUID } from 'node:crypto';
import type { StateDelta } from '../state/state-delta.js';
import type { StateView } from '../state/state-view.js';
import type { ToolCallDescription, ToolContext, ToolDefinition } from '../tools/types.js';
import { rememberedApprovalKey } from './approval-state-keys.js';
import {
  type ApprovalDecision,
  type ApprovalEvent,
  type ApprovalOptions,
  type ApprovalOutcome,
  type ApprovalRequest,
  type ApprovalSource,
  approvalDecisions,
} from './approval-types.js';

/** The verdict on one call: run it, or return `message` to the model instead. */
export type ApprovalVerdict =
  | { run: true; outcome?: ApprovalOutcome; remembered: StateDelta }
  | { run: false; outcome: ApprovalOutcome; message: string };

/** The tool result the model sees for a call that was not approved: it says so, and that nothing ran. */
export interface DeniedToolResult {
  approval: 'denied';
  message: string;
}

// biome-ignore lint/suspicious/noExplicitAny: any tool definition, whatever its input type.
type AnyToolDefinition = ToolDefinition<any, any>;

function listed(names: readonly string[] | 'all' | undefined, name: string): boolean {
  return names === 'all' || names?.includes(name) === true;
}

/** True when no call of this tool can need approval under `options`, so nothing need be described. */
export function approvalNeverNeeded(options: ApprovalOptions | undefined, definition: AnyToolDefinition): boolean {
  if (options === undefined) return true;
  if (listed(options.tools, definition.name)) return false;
  const anySkill = options.skills === 'all' || (options.skills?.length ?? 0) > 0;
  // Only a tool that describes its calls can name the skills it runs or stages.
  return !anySkill || definition.describeCall === undefined;
}

/**
 * What an `allow-always` would remember for this call: the skill of `skill_run` when the tool or
 * the skill is listed (a skill is approved, not a tool: approving skill A says nothing about B),
 * `tool:<name>` for other listed tools, and every skill the policy lists whose copy the command
 * can reach: staged for this call or in the workspace already (a skill's scripts can be run through
 * `workspace_exec`, or through `../<skill>/` from another skill's copy, so they need the same approval there).
 */
export function approvalSubjects(
  options: ApprovalOptions,
  tool: string,
  description: ToolCallDescription | undefined,
): string[] {
  const subjects = new Set<string>();
  const toolListed = listed(options.tools, tool);
  if (description?.skill !== undefined) {
    if (toolListed || listed(options.skills, description.skill)) subjects.add(`skill:${description.skill}`);
  } else if (toolListed) {
    subjects.add(`tool:${tool}`);
  }
  for (const skill of [...(description?.stagedSkills ?? []), ...(description?.skillsInWorkspace ?? [])]) {
    if (listed(options.skills, skill)) subjects.add(`skill:${skill}`);
  }
  return [...subjects];
}

/** Subjects an earlier `allow-always` of this session has not covered. */
export function unapprovedSubjects(subjects: readonly string[], state: StateView): string[] {
  return subjects.filter((subject) => state.get(rememberedApprovalKey(subject)) !== '1');
}

/** The call's description and the subjects still needing a person, or undefined when the call needs none. */
export async function pendingApproval(
  options: ApprovalOptions | undefined,
  definition: AnyToolDefinition,
  input: unknown,
  context: ToolContext,
): Promise<{ description: ToolCallDescription | undefined; subjects: string[]; pending: string[] } | undefined> {
  if (options === undefined || approvalNeverNeeded(options, definition)) return undefined;
  const description = await definition.describeCall?.(input, context);
  const subjects = approvalSubjects(options, definition.name, description);
  if (subjects.length === 0) return undefined;
  return { description, subjects, pending: unapprovedSubjects(subjects, context.state) };
}

/**
 * Most staged files an approval request names. The request goes to `decide`, into the session's
 * events and through an MCP elicitation on every gated call: a skill with 100,000 files must not
 * make each of them megabytes. The rest are counted in `stagedFilesLeftOut`.
 */
export const maxDescribedFiles = 200;

/** The request a person is shown for one call. */
export function approvalRequestOf(
  definition: AnyToolDefinition,
  input: unknown,
  context: ToolContext,
  description: ToolCallDescription | undefined,
  subjects: string[],
): ApprovalRequest {
  return {
    // Tied to the tool call when there is one, so a request recorded when the AI SDK asked and the
    // decision recorded when the call runs name the same request.
    id: context.toolCallId !== undefined ? `approval-${context.toolCallId}` : randomUUID(),
    tool: definition.name,
    ...(context.toolCallId !== undefined ? { toolCallId: context.toolCallId } : {}),
    sessionId: context.sessionId,
    ...(context.userId !== undefined ? { userId: context.userId } : {}),
    ...(context.appName !== undefined ? { appName: context.appName } : {}),
    agentName: context.agentName,
    stagedSkills: [],
    inputs: [],
    outputs: [],
    ...description,
    ...boundedStagedFiles(description),
    remembers: subjects,
    input,
  };
}

/** The description's staged files cut to `maxDescribedFiles`, with how many were left out (by the tool or here). */
function boundedStagedFiles(
  description: ToolCallDescription | undefined,
): Pick<ToolCallDescription, 'stagedFiles' | 'stagedFilesLeftOut'> {
  const described = description?.stagedFiles ?? [];
  const stagedFiles = described.slice(0, maxDescribedFiles);
  const leftOut = (description?.stagedFilesLeftOut ?? 0) + described.length - stagedFiles.length;
  return { stagedFiles, ...(leftOut > 0 ? { stagedFilesLeftOut: leftOut } : {}) };
}

/** How an integration asks: an answer, or undefined when nobody could be asked (with why). */
export type AskForApproval = (
  request: ApprovalRequest,
) => Promise<{ decision: ApprovalDecision; source?: ApprovalSource } | { unanswered: string }>;

/** The `decide` callback as an `AskForApproval`: a throw or an unknown answer leaves the request unanswered. */
export function askThroughDecide(decide: NonNullable<ApprovalOptions['decide']>): AskForApproval {
  return async (request) => {
    try {
      const decision: unknown = await decide(request);
      if (approvalDecisions.includes(decision as ApprovalDecision))
        return { decision: decision as ApprovalDecision, source: 'person' };
      return { unanswered: `decide returned ${JSON.stringify(decision)}, not one of ${approvalDecisions.join(', ')}` };
    } catch (error) {
      return { unanswered: `decide failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  };
}

/**
 * A skill this call would stage that still needs approval, with the running background processes
 * that were not started beside it. Such a process keeps running after the decision and could run
 * the skill's scripts the moment it is staged, which the person approving this call never saw:
 * staging it there is refused whatever the answer (the processes must end first). A skill an
 * `allow-always` covers is not pending, so it may be staged beside anything.
 */
export function stagingBesideUnapprovedProcesses(
  description: ToolCallDescription | undefined,
  pending: readonly string[],
): { skill: string; processes: NonNullable<ToolCallDescription['backgroundProcesses']> } | undefined {
  const processes = description?.backgroundProcesses ?? [];
  if (processes.length === 0) return undefined;
  for (const skill of description?.stagedSkills ?? []) {
    if (!pending.includes(`skill:${skill}`)) continue;
    const unapproved = processes.filter((process) => !process.skills.includes(skill));
    if (unapproved.length > 0) return { skill, processes: unapproved };
  }
  return undefined;
}

/** Why a call that would stage `skill` beside unapproved background processes is refused, and what to do. */
function stagingBesideProcessesReason(found: NonNullable<ReturnType<typeof stagingBesideUnapprovedProcesses>>): string {
  const named = found.processes.map((process) => `${process.id} (command: ${process.command})`).join(', ');
  return (
    `it would stage skill "${found.skill}" beside background process${found.processes.length > 1 ? 'es' : ''} ${named}, ` +
    `started before "${found.skill}" was reachable and not approved for it, which could run its scripts unseen; ` +
    'end them with workspace_kill (or wait until they exit), then call again'
  );
}

/** The model-facing text of a refused call. */
export function deniedMessage(request: Pick<ApprovalRequest, 'tool' | 'skill' | 'command'>, reason?: string): string {
  const what = `${request.tool}${request.skill !== undefined ? ` of skill "${request.skill}"` : ''}${
    request.command !== undefined ? ` (command: ${request.command})` : ''
  }`;
  return reason === undefined
    ? `Not run: the person denied ${what}. Nothing was executed. Do not run it another way; say what you wanted to do and ask how to go on.`
    : `Not run: ${what} needs a person's approval and none was given (${reason}). Nothing was executed.`;
}

/**
 * Decides whether one tool call may run: not needing approval, covered by an earlier
 * `allow-always` of this session, or answered by `ask`. Every request and decision goes to
 * `record` (and the policy's `onEvent`). An `allow-always` is written into `context.state`, so it
 * persists with the session; an unanswered request is a denial.
 *
 * The decision reads only the call's description (built from its validated input) and the
 * session's state: nothing the model writes into a tool input can approve a call.
 */
export async function approveToolCall(request: {
  options: ApprovalOptions | undefined;
  definition: AnyToolDefinition;
  input: unknown;
  context: ToolContext;
  /** How to ask; undefined when nobody can be asked. */
  ask: AskForApproval | undefined;
  /** Where events go besides `options.onEvent` (the session's log). */
  record?: (event: ApprovalEvent) => void;
  /** The author of decision events (default `user`). */
  decidedBy?: string;
  /** The request event was recorded already (when the AI SDK asked for the approval). */
  requestRecorded?: boolean;
}): Promise<ApprovalVerdict> {
  const { options, definition, input, context } = request;
  const pending = await pendingApproval(options, definition, input, context);
  if (options === undefined || pending === undefined) return { run: true, remembered: {} };
  const emit = (event: ApprovalEvent) => {
    request.record?.(event);
    options.onEvent?.(event);
  };
  const approval = approvalRequestOf(definition, input, context, pending.description, pending.subjects);
  const outcomeOf = (decision: ApprovalDecision, source: ApprovalSource, reason?: string): ApprovalOutcome => ({
    requestId: approval.id,
    tool: approval.tool,
    ...(approval.toolCallId !== undefined ? { toolCallId: approval.toolCallId } : {}),
    decision,
    source,
    remembers: approval.remembers,
    ...(reason !== undefined ? { reason } : {}),
  });
  const decidedBy = request.decidedBy ?? 'user';
  const beside = stagingBesideUnapprovedProcesses(pending.description, pending.pending);
  if (beside !== undefined) {
    const reason = stagingBesideProcessesReason(beside);
    const outcome = outcomeOf('deny', 'policy', reason);
    emit({ type: 'approval-decision', author: 'system', content: outcome });
    return {
      run: false,
      outcome,
      message: `Not run: ${approval.tool}${approval.skill !== undefined ? ` of skill "${approval.skill}"` : ''}: ${reason}. Nothing was executed.`,
    };
  }
  if (pending.pending.length === 0) {
    const outcome = outcomeOf('allow-always', 'remembered');
    emit({ type: 'approval-decision', author: 'system', content: outcome });
    return { run: true, outcome, remembered: {} };
  }
  if (request.requestRecorded !== true)
    emit({ type: 'approval-request', author: context.agentName, content: approval });
  const answer =
    request.ask === undefined ? { unanswered: 'no way to ask a person is configured' } : await request.ask(approval);
  if ('unanswered' in answer) {
    const outcome = outcomeOf('deny', 'unanswered', answer.unanswered);
    emit({ type: 'approval-decision', author: 'system', content: outcome });
    return { run: false, outcome, message: deniedMessage(approval, answer.unanswered) };
  }
  const outcome = outcomeOf(answer.decision, answer.source ?? 'person');
  emit({ type: 'approval-decision', author: decidedBy, content: outcome });
  if (answer.decision === 'deny') return { run: false, outcome, message: deniedMessage(approval) };
  const remembered: StateDelta = {};
  if (answer.decision === 'allow-always') {
    for (const subject of approval.remembers) {
      context.state.set(rememberedApprovalKey(subject), '1');
      remembered[rememberedApprovalKey(subject)] = '1';
    }
  }
  return { run: true, outcome, remembered };
}

/** The result a refused call returns to the model. */
export function deniedToolResult(verdict: Extract<ApprovalVerdict, { run: false }>): DeniedToolResult {
  return { approval: 'denied', message: verdict.message };
}
