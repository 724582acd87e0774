import type { ObjectContext } from '@restatedev/restate-sdk';
import type { TurnJournal } from './turn-journal.js';

/** A turn's journal on Restate: `ctx.run` entries and awakeables of the turn's invocation. */
export function restateTurnJournal(ctx: ObjectContext): TurnJournal {
  return {
    invocationId: ctx.request().id,
    attemptEnded: ctx.request().attemptCompletedSignal,
    run: (name, action) => ctx.run(name, action),
    awakeable: <T>() => {
      const { id, promise } = ctx.awakeable<T>();
      return { id, promise };
    },
  };
}
