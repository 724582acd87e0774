import { randomUUID } from 'node:crypto';
import { type LanguageModel, wrapLanguageModel } from 'ai';
import { SkillboxConfigError } from '../../config/config-error.js';
import type { FeedEvent } from '../../sessions/turn-event-feed.js';
import { restartedStepId, textDeltaId } from './durable-turn-events.js';
import type { TurnJournal } from './turn-journal.js';

/** One stream part as journaled: JSON, with a response timestamp as its ISO text. */
type JournaledPart = { type: string; [field: string]: unknown };

/** Where the live deltas of a step go while it streams (the turn's feed). */
export type PublishLive = (events: FeedEvent[]) => Promise<void>;

/**
 * The model of a durable turn: each model call (one step) is one journal entry holding the stream
 * parts it produced. While a step streams, its text deltas go to the feed live; the step's parts
 * reach the turn loop (and so its `step-finish` the feed) only once the entry is stored, so a step a
 * client saw finish is never requested again. A replay streams the journaled parts back without
 * calling the model. A step cut off before its entry was stored is requested again, after a
 * `step-restarted` event on the feed; its new deltas have new ids (a new attempt), so they are not
 * dropped as repeats of the lost ones.
 *
 * Works for ai 6 and ai 7: both take this middleware shape, and the parts it reads (`text-delta`'s
 * `delta`, `response-metadata`'s `timestamp`, `error`) are the same in both.
 */
export function journaledModel(model: LanguageModel, journal: TurnJournal, publishLive: PublishLive): LanguageModel {
  if (typeof model === 'string')
    throw new SkillboxConfigError('createSkillSessionObject', [
      {
        option: 'agent.model',
        problem: `must be a model object (a durable turn journals its calls through AI SDK middleware); got the id ${JSON.stringify(model)}`,
      },
    ]);
  let steps = 0;
  const middleware = {
    wrapStream: async ({ doStream }: { doStream: () => PromiseLike<{ stream: ReadableStream<unknown> }> }) => {
      const step = steps++;
      // The marker tells a step whose earlier attempt was lost (marker stored, step not) from a first one.
      let firstAttempt = false;
      await journal.run(`model step ${step} started`, async () => {
        firstAttempt = true;
        return true;
      });
      const parts = await journal.run(`model step ${step}`, async () => {
        const attempt = randomUUID().slice(0, 8);
        if (!firstAttempt)
          await publishLive([
            { id: restartedStepId(step, attempt), data: { type: 'step-restarted', stepNumber: step } },
          ]);
        return collectStep(await doStream(), step, attempt, publishLive);
      });
      return { stream: streamOf(parts) };
    },
  };
  // biome-ignore lint/suspicious/noExplicitAny: ai 6 and ai 7 type the middleware and the model by their own provider versions; this one object serves both.
  return wrapLanguageModel({ model: model as any, middleware: middleware as any }) as LanguageModel;
}

async function collectStep(
  result: { stream: ReadableStream<unknown> },
  step: number,
  attempt: string,
  publishLive: PublishLive,
): Promise<JournaledPart[]> {
  const parts: JournaledPart[] = [];
  let deltas = 0;
  const reader = result.stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const part = value as JournaledPart;
    // A failed call is retried by the journal (a new attempt), never stored as the step's answer.
    if (part.type === 'error') throw part.error instanceof Error ? part.error : new Error(String(part.error));
    parts.push(toJournal(part));
    if (part.type === 'text-delta' && typeof part.delta === 'string')
      await publishLive([
        { id: textDeltaId(step, attempt, deltas++), data: { type: 'text-delta', stepNumber: step, text: part.delta } },
      ]);
  }
  return parts;
}

function toJournal(part: JournaledPart): JournaledPart {
  if (part.type === 'response-metadata' && part.timestamp instanceof Date)
    return { ...part, timestamp: part.timestamp.toISOString() };
  // `raw` parts (provider chunks, only when asked for) need not survive a replay.
  return part.type === 'raw' ? { type: 'raw', rawValue: null } : part;
}

function fromJournal(part: JournaledPart): JournaledPart {
  if (part.type === 'response-metadata' && typeof part.timestamp === 'string')
    return { ...part, timestamp: new Date(part.timestamp) };
  return part;
}

function streamOf(parts: readonly JournaledPart[]): ReadableStream<unknown> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(fromJournal(part));
      controller.close();
    },
  });
}
