import type { LanguageModel, Tool } from 'ai';
import type { ApprovalOptions } from '../../approvals/approval-types.js';
import type { NewSessionEvent } from '../../sessions/session-store.js';
import type { StateDelta } from '../../state/state-delta.js';
import type { SessionAsRead } from './agent-call.js';

/** One tool call as a durable runner journals it. */
export interface JournaledToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** What a tool call did: its output and the state change it committed. */
export interface ToolCallOutcome {
  output: unknown;
  delta: StateDelta;
}

/**
 * The seams a durable runner (skillbox/restate) puts into `runAgentTurn`, so a durable turn is the
 * same loop as `SkillAgent.run` and not a copy of it. Each seam is absent in a plain run.
 */
export interface TurnDurability {
  /** The model every step calls: a durable runner journals each step. */
  wrapModel(model: LanguageModel): LanguageModel;
  /**
   * The turn's tools, wrapped so their calls run in a replayable order and the caller's own tools
   * (not built by skillbox, which journal through `journalToolCall`) are journaled too.
   */
  wrapTools(tools: Readonly<Record<string, Tool>>): Record<string, Tool>;
  /**
   * Runs a skillbox tool call's work (after its approval) once: `work` runs the tool and commits its
   * state change; a replay answers with the recorded outcome and `apply` puts its delta into the
   * state instead.
   */
  journalToolCall(
    call: JournaledToolCall,
    work: () => Promise<ToolCallOutcome>,
    apply: (delta: StateDelta) => void,
  ): Promise<ToolCallOutcome>;
  /** Reads the session once: a replay must see the session as the first attempt read it. */
  readSession(read: () => Promise<SessionAsRead>): Promise<SessionAsRead>;
  /** Appends the turn's events once (ids given here), after `expectedVersion`; returns the new version. */
  appendTurn(events: NewSessionEvent[], expectedVersion: number): Promise<number>;
  /** Asks a person about a call, durably (a turn waiting for the answer survives a restart). */
  decideApproval?: ApprovalOptions['decide'];
  /** Prefix of the run ids of this turn's commands (`${runIdPrefix}/${toolCallId}`), so a runtime's ledger dedupes runs. */
  runIdPrefix?: string;
}
