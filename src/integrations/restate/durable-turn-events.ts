import type { ApprovalRequest } from '../../approvals/approval-types.js';
import type { SkillAgentEvent } from '../ai-sdk/agent-events.js';

/**
 * What a durable turn publishes to its feed: every `SkillAgentEvent` of `SkillAgent.run`, and
 * - `step-restarted`: a step was cut off before it was journaled and is requested again; discard
 *   the text of that step received so far (its deltas before this event);
 * - `approval-requested`: a call waits for a person; answer it with the `approve` handler and
 *   this `approvalId` (a Restate awakeable id);
 * - `turn-failed`: the turn ended with an error (stored in the session as an error event).
 */
export type DurableTurnEvent =
  | SkillAgentEvent
  | { type: 'step-restarted'; stepNumber: number }
  | { type: 'approval-requested'; approvalId: string; request: ApprovalRequest }
  | { type: 'turn-failed'; message: string; code?: string };

/**
 * Names the feed ids of one turn's events. An id depends only on what the event is (its step,
 * tool call, place among the step's turn changes), never on when it was published, so a replay
 * that publishes an event again gives it the same id and the feed drops it.
 */
export class TurnFeedIds {
  private readonly counts = new Map<string, number>();

  /** The id of a loop event; text deltas are named where they are streamed (`textDeltaId`). */
  idOf(event: Exclude<DurableTurnEvent, { type: 'text-delta' }>): string {
    switch (event.type) {
      case 'tool-call':
        return `s${event.stepNumber}/call/${event.toolCallId}`;
      case 'tool-result':
        return `s${event.stepNumber}/result/${event.toolCallId}`;
      case 'state-change':
        return this.numbered(`s${event.stepNumber}/state/${event.toolCallId ?? `${event.source}`}`);
      case 'step-finish':
        return `s${event.stepNumber}/finish`;
      case 'done':
        return 'done';
      case 'step-restarted':
        throw new Error('a restarted step is named by its attempt (restartedStepId)');
      case 'approval-requested':
        return `approval/${event.request.toolCallId ?? event.approvalId}`;
      case 'turn-failed':
        return 'failed';
    }
  }

  private numbered(prefix: string): string {
    const count = this.counts.get(prefix) ?? 0;
    this.counts.set(prefix, count + 1);
    return `${prefix}/${count}`;
  }
}

/** The id of a streamed text delta: its step, the attempt that streamed it, its place in the attempt. */
export function textDeltaId(stepNumber: number, attempt: string, index: number): string {
  return `s${stepNumber}/${attempt}/t${index}`;
}

/** The id of the notice that a step's attempt starts over. */
export function restartedStepId(stepNumber: number, attempt: string): string {
  return `s${stepNumber}/${attempt}/restarted`;
}
