import { type ModelMessage, streamText, type UserModelMessage } from 'ai';
import type { ApprovalOptions } from '../../approvals/approval-types.js';
import { SkillboxConfigError } from '../../config/config-error.js';
import { loadedSkillNames } from '../../disclosure/loaded-skills.js';
import { includesNonModelInvocable } from '../../disclosure/model-invocable-skills.js';
import { unloadSkillDelta } from '../../disclosure/skill-transitions.js';
import { describeUnavailableTool } from '../../disclosure/unavailable-tool-message.js';
import type { NewSessionEvent } from '../../sessions/session-store.js';
import { PendingStateWrites } from '../../state/pending-state-writes.js';
import { type AgentCall, type AgentSetup, openAgentCall, sessionKeyOf } from './agent-call.js';
import { emptyUsage, type SkillAgentEvent } from './agent-events.js';
import { responseMessagesAfterStep } from './ai-sdk-versions.js';
import { windowHistory } from './history-window.js';
import { type CompactionPlan, planCompaction } from './loaded-content-compaction.js';
import type { SkillAgentRunOptions } from './skill-agent.js';
import { stepRequestRecords } from './step-request-record.js';
import type { TurnDurability } from './turn-durability.js';
import { HeldTurnEvents, type TurnProgress, turnEventsOfStream } from './turn-event-mapping.js';
import { isUnavailableToolError } from './unavailable-tool-calls.js';

/**
 * One turn of `SkillAgent.run`: the session is read and its history replayed, the model streams
 * as events, and the turn (the user message, the response messages, the net state change and the
 * approval events) is appended in one append. A turn that fails after finishing steps stores what
 * those steps did with an error event.
 */
export async function* runAgentTurn(
  setup: AgentSetup,
  runOptions: SkillAgentRunOptions,
  traceContext: unknown,
  durability?: TurnDurability,
): AsyncGenerator<SkillAgentEvent> {
  const key = sessionKeyOf(runOptions ?? {}, setup.appName, 'SkillAgent.run');
  const userMessage: UserModelMessage =
    typeof runOptions.message === 'string' ? { role: 'user', content: runOptions.message } : runOptions.message;
  if (userMessage?.role !== 'user')
    throw new SkillboxConfigError('SkillAgent.run', [
      { option: 'message', problem: 'must be a string or a user ModelMessage' },
    ]);
  const held = new HeldTurnEvents();
  const progress: TurnProgress = { stepNumber: 0, usage: emptyUsage, stepUsages: [] };
  const { approval } = setup.options;
  const call = await openAgentCall(setup, {
    key,
    skillContext: runOptions.context,
    skillLoads: runOptions.skillLoads,
    readEvents: true,
    hooks: {
      onStateChange: (change) => held.push({ type: 'state-change', stepNumber: progress.stepNumber, ...change }),
      ...(approval !== undefined
        ? { decideApproval: durability?.decideApproval ?? approval.decide ?? refuseWithoutDecide }
        : {}),
      ...(traceContext !== undefined ? { traceContext } : {}),
    },
    durability,
  });
  const history = await replayedHistory(
    setup,
    call.session.events.filter((event) => event.type === 'message').map((event) => event.content as ModelMessage),
  );
  const compaction = compactHistory(setup, call, history, runOptions, held);
  // The response messages of every finished step (the SDK's step results are cumulative).
  let completedMessages: ModelMessage[] = [];
  // Where each finished step's messages start in completedMessages.
  const completedStepStarts: number[] = [];

  /** The turn's events: the user message, the messages of `messages`, the net state change, and `extra`. */
  const turnEvents = (
    messages: readonly ModelMessage[],
    stepStarts: readonly number[],
    extra: NewSessionEvent[],
  ): NewSessionEvent[] => {
    const requests = stepRequestRecords(stepStarts, call.preparedSteps, call.customToolCount, progress.stepUsages);
    const events: NewSessionEvent[] = [
      { author: 'user', type: 'message', content: userMessage },
      ...messages.map((message, index): NewSessionEvent => {
        const request = requests.get(index);
        return {
          author: setup.name,
          type: 'message',
          content: message,
          ...(request === undefined ? {} : { metadata: { request } }),
        };
      }),
    ];
    const last = events[events.length - 1]!;
    last.usage = { ...progress.usage };
    const delta = call.stateDelta();
    if (Object.keys(delta).length > 0) events.push({ author: setup.name, type: 'state', stateDelta: delta });
    return [...events, ...call.approvalEvents, ...extra];
  };

  const result = streamText({
    ...setup.callSettings,
    ...call.modelSettings(),
    messages: [...(compaction?.messages ?? history), userMessage],
    onStepFinish: (step) => {
      completedStepStarts.push(completedMessages.length);
      completedMessages = responseMessagesAfterStep(completedMessages, step);
    },
    // Errors are rethrown from the event stream; the SDK's default would also print them.
    onError: () => {},
    ...(runOptions.abortSignal !== undefined ? { abortSignal: runOptions.abortSignal } : {}),
  });

  try {
    yield* turnEventsOfStream(result.fullStream, {
      held,
      progress,
      activeTools: call.activeTools,
      describeToolError: (toolName, error) => describeToolError(setup, runOptions, toolName, error),
      ...(runOptions.abortSignal !== undefined ? { abortSignal: runOptions.abortSignal } : {}),
    });
  } catch (error) {
    yield* held.all();
    // The finished steps' side effects (files a script wrote, loaded skills) stay, so their
    // messages and state are stored with an error event: a retry sees a coherent history.
    // A turn that finished no step and changed no state stores nothing.
    const partial = turnEvents(completedMessages, completedStepStarts, [
      {
        author: setup.name,
        type: 'error',
        content: {
          message: errorMessage(error),
          ...(error instanceof Error && 'code' in error ? { code: String(error.code) } : {}),
          steps: progress.stepNumber,
        },
      },
    ]);
    if (completedMessages.length > 0 || partial.some((event) => event.type === 'state')) await call.append(partial);
    throw error;
  }
  yield* held.all();

  // Every step's response messages (the final response alone holds only the last step's on ai 7).
  const stepStarts: number[] = [];
  const responseMessages = (await result.steps).reduce<ModelMessage[]>((messages, step) => {
    stepStarts.push(messages.length);
    return responseMessagesAfterStep(messages, step);
  }, []);
  const version = await call.append(turnEvents(responseMessages, stepStarts, []));
  const { stepNumber: steps, usage } = progress;
  yield { type: 'done', text: await result.text, steps, usage, sessionVersion: version };
}

async function replayedHistory(setup: AgentSetup, stored: ModelMessage[]): Promise<ModelMessage[]> {
  const { maxHistoryMessages, prepareHistory } = setup.options;
  const windowed = maxHistoryMessages === undefined ? stored : windowHistory(stored, maxHistoryMessages);
  if (prepareHistory === undefined) return windowed;
  const prepared = await prepareHistory(windowed);
  if (!Array.isArray(prepared))
    throw new SkillboxConfigError('SkillAgent.run', [
      { option: 'prepareHistory', problem: 'must return an array of ModelMessages' },
    ]);
  return prepared;
}

/** The compaction plan of the turn; the skills whose content it stubs are unloaded with it. */
function compactHistory(
  setup: AgentSetup,
  call: AgentCall,
  history: ModelMessage[],
  runOptions: SkillAgentRunOptions,
  held: HeldTurnEvents,
): CompactionPlan | undefined {
  if (setup.options.compaction === undefined) return undefined;
  const plan = planCompaction(
    history,
    setup.options.compaction,
    loadedSkillNames(call.state, setup.name),
    (runOptions.skillLoads ?? []).map((load) => load.name),
  );
  if (plan.unload.length > 0) {
    // Compacted content must not come back by materialisation: the skill is unloaded with it.
    const unloaded = new PendingStateWrites(
      call.state,
      Object.assign({}, ...plan.unload.map((skill) => unloadSkillDelta(setup.name, skill))),
    ).commit();
    if (Object.keys(unloaded).length > 0)
      held.push({ type: 'state-change', stepNumber: 0, source: 'turn', delta: unloaded });
  }
  return plan;
}

/** What the model was shown for a failed call: for a pool tool it could not call, which skill provides it. */
async function describeToolError(
  setup: AgentSetup,
  runOptions: SkillAgentRunOptions,
  toolName: string,
  error: unknown,
): Promise<string> {
  if (!isUnavailableToolError(error) || !setup.toolkits.poolToolNames.includes(toolName)) return errorMessage(error);
  return describeUnavailableTool(setup.repository, runOptions.context, toolName, {
    includeNonModelInvocable: includesNonModelInvocable(setup.options),
  });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * `run` streams a turn to its end and cannot pause for the AI SDK's approval response, so without
 * a `decide` to ask, a call needing approval is denied, never run.
 */
const refuseWithoutDecide: NonNullable<ApprovalOptions['decide']> = () => {
  throw new Error(
    'SkillAgent.run has no approval.decide to ask a person; give createSkillAgent approval.decide, or use asAiSdkAgent() and answer the AI SDK tool-approval requests',
  );
};
