import type { VirtualObjectDefinition } from '@restatedev/restate-sdk';
import { type ApprovalDecision, approvalDecisions } from '../../approvals/approval-types.js';
import { SkillboxConfigError } from '../../config/config-error.js';
import type { TurnEventFeed } from '../../sessions/turn-event-feed.js';
import { buildAgentSetup, type SkillAgentOptions } from '../ai-sdk/skill-agent.js';
import { type DurableTurnInput, runDurableTurn } from './durable-turn.js';
import { loadRestateSdk } from './load-restate-sdk.js';
import { restateTurnJournal } from './restate-turn-journal.js';
import { parseSessionObjectKey } from './session-object-key.js';

/** Options of `createSkillSessionObject`. */
export interface SkillSessionObjectOptions {
  /** The agent, as for `createSkillAgent`: the model must be a model object, and `sessions` a store every worker shares. */
  agent: SkillAgentOptions;
  /** Where each turn's events go for clients to follow (`openRedisTurnEventFeed` when workers are many). */
  feed: TurnEventFeed;
  /** The virtual object's name in Restate; default `skillbox-session`. */
  name?: string;
  /** Your own tools whose calls may simply run again when the worker running them was lost. */
  retrySafeTools?: readonly string[];
  /**
   * True when the agent's commands run on sandbox workers that share a durable run ledger
   * (`skillbox worker --ledger postgres://...`, docs/workers.md): a `skill_run` or `workspace_exec`
   * lost with its agent worker is then asked again under the same run id, and the ledger answers
   * with the recorded result, the run still going, or the lost-run result; it is not reported lost
   * on the agent side alone. Default false: without a ledger that outlives a worker, asking again
   * could run the command twice.
   */
  runLedger?: boolean;
}

/** What `approve` takes: the `approvalId` of an `approval-requested` feed event and the person's decision. */
export interface ApproveInput {
  approvalId: string;
  decision: ApprovalDecision;
}

/** The session object and what serving it needs. */
export interface SkillSessionObject {
  /** The virtual object's name (the path segment of its ingress URLs). */
  readonly name: string;
  /** The Restate definition: bind it to an endpoint (`serveSkillSessions`, or the SDK's own). */
  readonly definition: VirtualObjectDefinition<string, unknown>;
}

/**
 * A Restate virtual object per session (key: `sessionObjectKey({ appName, userId, sessionId })`):
 * `turn` (exclusive, one writer per session across the cluster) runs one turn of the agent's loop
 * durably; `approve` (shared) answers a turn waiting for a person. Loads the optional
 * `@restatedev/restate-sdk` (after the Node 20 polyfill).
 */
export async function createSkillSessionObject(options: SkillSessionObjectOptions): Promise<SkillSessionObject> {
  const component = 'createSkillSessionObject';
  if (typeof options?.feed?.publish !== 'function')
    throw new SkillboxConfigError(component, [{ option: 'feed', problem: 'must be a TurnEventFeed' }]);
  const setup = buildAgentSetup(component, options.agent);
  if (typeof setup.model === 'string')
    throw new SkillboxConfigError(component, [
      { option: 'agent.model', problem: 'must be a model object (its calls are journaled through AI SDK middleware)' },
    ]);
  const appName = setup.appName ?? 'default';
  const sdk = await loadRestateSdk(component);
  const name = options.name ?? 'skillbox-session';
  const terminal = (error: unknown) => new sdk.TerminalError(error instanceof Error ? error.message : String(error));
  const definition = sdk.object({
    name,
    handlers: {
      turn: async (ctx: import('@restatedev/restate-sdk').ObjectContext, input: DurableTurnInput) => {
        let key: ReturnType<typeof parseSessionObjectKey>;
        try {
          key = parseSessionObjectKey(ctx.key);
          if (key.appName !== appName)
            throw new SkillboxConfigError(name, [
              { option: 'key', problem: `names app "${key.appName}"; this object serves app "${appName}"` },
            ]);
        } catch (error) {
          throw terminal(error);
        }
        try {
          return await runDurableTurn({
            setup,
            journal: restateTurnJournal(ctx),
            feed: options.feed,
            key,
            input,
            ...(options.retrySafeTools !== undefined ? { retrySafeTools: options.retrySafeTools } : {}),
            ...(options.runLedger === true ? { runLedger: true } : {}),
          });
        } catch (error) {
          // A failed turn stored what it did with an error event; running it again would not help.
          throw terminal(error);
        }
      },
      approve: sdk.handlers.object.shared(
        async (ctx: import('@restatedev/restate-sdk').ObjectSharedContext, input: ApproveInput) => {
          if (typeof input?.approvalId !== 'string' || input.approvalId === '')
            throw new sdk.TerminalError(`${name}.approve: approvalId must be the id of an approval-requested event`);
          if (!approvalDecisions.includes(input.decision))
            throw new sdk.TerminalError(
              `${name}.approve: decision must be one of ${approvalDecisions.join(', ')}; got ${JSON.stringify(input.decision)}`,
            );
          ctx.resolveAwakeable(input.approvalId, input.decision);
        },
      ),
    },
  });
  return { name, definition: definition as unknown as VirtualObjectDefinition<string, unknown> };
}
