import type { UserModelMessage } from 'ai';
import type { ApprovalDecision } from '../../approvals/approval-types.js';
import type { DeclaredSkillLoad } from '../../disclosure/declared-loads.js';
import type { SkillContext } from '../../repository/types.js';
import { appendEventsOnce } from '../../sessions/append-events-once.js';
import { SessionExistsError } from '../../sessions/session-errors.js';
import type { SessionKey } from '../../sessions/session-store.js';
import type { FeedEvent, TurnEventFeed, TurnFeedKey } from '../../sessions/turn-event-feed.js';
import type { AgentSetup } from '../ai-sdk/agent-call.js';
import type { SkillAgentEvent } from '../ai-sdk/agent-events.js';
import { runAgentTurn } from '../ai-sdk/agent-turn.js';
import type { TurnDurability } from '../ai-sdk/turn-durability.js';
import { type DurableTurnEvent, TurnFeedIds } from './durable-turn-events.js';
import { journaledModel } from './journaled-model.js';
import { journalCustomTools, journalToolCalls } from './journaled-tool-calls.js';
import type { TurnJournal } from './turn-journal.js';

/** What a client sends to start a turn: the message, and optionally declared loads and the caller's context. */
export interface DurableTurnInput {
  message: string | UserModelMessage;
  skillLoads?: readonly DeclaredSkillLoad[];
  context?: SkillContext;
}

/** What a durable turn answers when it is over: the `done` event of `SkillAgent.run`, and the turn's id. */
export interface DurableTurnResult {
  /** The turn's id: Restate's invocation id; the feed of the turn is keyed by it. */
  turnId: string;
  text: string;
  steps: number;
  usage: Extract<SkillAgentEvent, { type: 'done' }>['usage'];
  sessionVersion: number;
}

/** One durable turn's parts: the agent, the journal, the feed and the session. */
export interface DurableTurnRequest {
  setup: AgentSetup;
  journal: TurnJournal;
  feed: TurnEventFeed;
  key: Required<SessionKey>;
  input: DurableTurnInput;
  /** The caller's own tools whose calls may run again after a lost run. */
  retrySafeTools?: readonly string[];
  /** Commands run on workers with a durable run ledger: a lost command is asked again under its run id. */
  runLedger?: boolean;
}

/**
 * Runs one turn of `SkillAgent.run`'s loop (`runAgentTurn`) with a journal: every model step and
 * tool call is journaled, the session is read once and the turn's events appended once (ids from
 * the invocation id and the event's place), and every event goes to the feed with an id a replay
 * repeats, so a client following the feed gets each event once across a worker change.
 */
export async function runDurableTurn(request: DurableTurnRequest): Promise<DurableTurnResult> {
  const { setup, journal, feed, key, input } = request;
  const feedKey: TurnFeedKey = { ...key, turnId: journal.invocationId };
  const ids = new TurnFeedIds();
  const publish = (events: FeedEvent[], end = false) => feed.publish(feedKey, events, end ? { end } : undefined);
  const publishEvent = (event: Exclude<DurableTurnEvent, { type: 'text-delta' }>, end = false) =>
    publish([{ id: ids.idOf(event), data: event }], end);
  const rule = {
    repository: setup.repository,
    retrySafeTools: request.retrySafeTools ?? [],
    runLedger: request.runLedger === true,
  };
  const durability: TurnDurability = {
    wrapModel: (model) => journaledModel(model, journal, (events) => publish(events)),
    wrapTools: journalCustomTools(journal, rule),
    journalToolCall: journalToolCalls(journal, rule),
    readSession: (read) => journal.run('read session', read),
    appendTurn: (events, expectedVersion) => {
      // An attempt that is over (its turn went to another attempt) must not write what it has:
      // its failure path would store an error turn the live attempt then conflicts with.
      if (journal.attemptEnded?.aborted) throw new Error(`turn ${journal.invocationId}: this attempt is over`);
      const withIds = events.map((event, index) => ({ ...event, id: `${journal.invocationId}/${index}` }));
      return journal.run('append turn', async () => {
        // The first turn of a session creates it; a replay finds it made and goes on.
        if (expectedVersion === 0) await setup.sessions.createSession(key).catch(ignoreSessionExists);
        return (await appendEventsOnce(setup.sessions, key, withIds, { expectedVersion })).version;
      });
    },
    decideApproval: async (approvalRequest) => {
      const { id, promise } = journal.awakeable<ApprovalDecision>();
      await publishEvent({ type: 'approval-requested', approvalId: id, request: approvalRequest });
      return promise;
    },
    runIdPrefix: journal.invocationId,
  };
  const runOptions = {
    userId: key.userId,
    sessionId: key.sessionId,
    message: input.message,
    ...(input.skillLoads !== undefined ? { skillLoads: input.skillLoads } : {}),
    ...(input.context !== undefined ? { context: input.context } : {}),
    ...(journal.attemptEnded !== undefined ? { abortSignal: journal.attemptEnded } : {}),
  };
  try {
    for await (const event of runAgentTurn(setup, runOptions, undefined, durability)) {
      // Text deltas went to the feed live, while their step streamed (journaledModel).
      if (event.type === 'text-delta') continue;
      await publishEvent(event, event.type === 'done');
      if (event.type === 'done') {
        const { text, steps, usage, sessionVersion } = event;
        return { turnId: journal.invocationId, text, steps, usage, sessionVersion };
      }
    }
    throw new Error('the turn ended without its done event');
  } catch (error) {
    if (journal.attemptEnded?.aborted) throw error;
    const code = (error as { code?: unknown })?.code;
    await publishEvent(
      {
        type: 'turn-failed',
        message: error instanceof Error ? error.message : String(error),
        ...(typeof code === 'string' ? { code } : {}),
      },
      true,
    ).catch(() => undefined);
    throw error;
  }
}

function ignoreSessionExists(error: unknown): void {
  if (!(error instanceof SessionExistsError)) throw error;
}
