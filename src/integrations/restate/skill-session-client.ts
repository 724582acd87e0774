import type { ApprovalDecision } from '../../approvals/approval-types.js';
import { SkillboxConfigError } from '../../config/config-error.js';
import type { TurnEventFeed } from '../../sessions/turn-event-feed.js';
import type { DurableTurnInput, DurableTurnResult } from './durable-turn.js';
import type { DurableTurnEvent } from './durable-turn-events.js';
import { type SessionObjectKeyParts, sessionObjectKey } from './session-object-key.js';

/** Options of `createSkillSessionClient`. */
export interface SkillSessionClientOptions {
  /** The Restate server's ingress, e.g. `http://127.0.0.1:8080`. */
  ingressUrl: string;
  /** The session object's name; default `skillbox-session`. */
  objectName?: string;
}

/** Starts turns, waits for their answers and answers approvals, through the Restate ingress. */
export interface SkillSessionClient {
  /**
   * Starts a turn and returns its id (the invocation id; the turn's feed is keyed by it). With an
   * `idempotencyKey`, sending the same turn again returns the same id instead of a second turn.
   */
  startTurn(
    session: SessionObjectKeyParts,
    input: DurableTurnInput,
    options?: { idempotencyKey?: string },
  ): Promise<string>;
  /** Waits for a turn's answer (whichever worker finishes it). */
  turnResult(turnId: string): Promise<DurableTurnResult>;
  /** Answers an `approval-requested` event of a turn of this session. */
  approve(session: SessionObjectKeyParts, approvalId: string, decision: ApprovalDecision): Promise<void>;
}

/** A client of the session objects behind a Restate ingress (plain `fetch`, no SDK needed). */
export function createSkillSessionClient(options: SkillSessionClientOptions): SkillSessionClient {
  let ingress: URL;
  try {
    ingress = new URL(options?.ingressUrl);
  } catch {
    throw new SkillboxConfigError('createSkillSessionClient', [
      { option: 'ingressUrl', problem: `must be a URL; got ${JSON.stringify(options?.ingressUrl)}` },
    ]);
  }
  const base = ingress.href.replace(/\/$/, '');
  const objectName = options.objectName ?? 'skillbox-session';
  const objectUrl = (session: SessionObjectKeyParts) =>
    `${base}/${encodeURIComponent(objectName)}/${encodeURIComponent(sessionObjectKey(session))}`;
  return {
    async startTurn(session, input, startOptions) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (startOptions?.idempotencyKey !== undefined) headers['idempotency-key'] = startOptions.idempotencyKey;
      const answer = (await call(`${objectUrl(session)}/turn/send`, {
        method: 'POST',
        headers,
        body: JSON.stringify(input),
      })) as {
        invocationId: string;
      };
      return answer.invocationId;
    },
    async turnResult(turnId) {
      return (await call(`${base}/restate/invocation/${encodeURIComponent(turnId)}/attach`, {
        method: 'GET',
      })) as DurableTurnResult;
    },
    async approve(session, approvalId, decision) {
      await call(`${objectUrl(session)}/approve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ approvalId, decision }),
      });
    },
  };
}

async function call(url: string, init: RequestInit): Promise<unknown> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (!response.ok) throw new Error(`Restate ingress ${init.method} ${url} answered ${response.status}: ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

/** One event of a turn as a client receives it: its feed id (to resume after) and the event. */
export interface FollowedTurnEvent {
  id: string;
  event: DurableTurnEvent;
}

/**
 * Follows a turn's feed from the start or after `after` (the id of the last event the client got),
 * until the turn's end (`done` or `turn-failed`): each event once, across worker changes and
 * reconnects. On `step-restarted`, drop the text of that step received before it.
 */
export async function* followTurn(
  feed: TurnEventFeed,
  session: SessionObjectKeyParts,
  turnId: string,
  options: { after?: string; signal?: AbortSignal } = {},
): AsyncGenerator<FollowedTurnEvent> {
  for await (const event of feed.read({ ...session, turnId }, options))
    yield { id: event.id, event: event.data as DurableTurnEvent };
}
