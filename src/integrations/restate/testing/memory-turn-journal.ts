import type { TurnJournal } from '../turn-journal.js';

/** Where an attempt stops, as a process killed there would: before an entry's action, or after it ran but before it was stored. */
export interface AttemptStop {
  /** The name of the entry the attempt stops at. */
  entry: string;
  when: 'before-action' | 'after-action';
}

/** An in-memory journal shared by the attempts of one turn, for tests of the durable turn without a Restate server. */
export interface MemoryTurnJournal {
  /** A new attempt (as after a worker restart): it replays the stored entries, then journals new ones. */
  attempt(stop?: AttemptStop, options?: { attemptEnded?: AbortSignal }): TurnJournal & { stopped: Promise<void> };
  /** Answers an awakeable by id. */
  resolve(id: string, value: unknown): void;
  /** The names of the stored entries, in order. */
  readonly names: string[];
}

/**
 * Stores each entry as JSON, as Restate does, so a value that does not survive JSON fails here too.
 * An attempt told to stop never settles the entry it stops at, like a process that was killed.
 */
export function createMemoryTurnJournal(invocationId: string): MemoryTurnJournal {
  const entries = new Map<string, string | undefined>();
  const names: string[] = [];
  const answers = new Map<string, unknown>();
  const waiting = new Map<string, (value: unknown) => void>();
  return {
    names,
    resolve(id, value) {
      answers.set(id, value);
      waiting.get(id)?.(value);
    },
    attempt(stop, options) {
      let awakeables = 0;
      let markStopped!: () => void;
      const stopped = new Promise<void>((resolve) => {
        markStopped = resolve;
      });
      const halt = <T>(): Promise<T> => {
        markStopped();
        return new Promise<T>(() => {});
      };
      return {
        invocationId,
        stopped,
        ...(options?.attemptEnded !== undefined ? { attemptEnded: options.attemptEnded } : {}),
        async run<T>(name: string, action: () => Promise<T>): Promise<T> {
          // An attempt that is over writes nothing more, as Restate closes its journal.
          if (options?.attemptEnded?.aborted) return halt();
          if (entries.has(name)) return parse(entries.get(name)) as T;
          if (stop?.entry === name && stop.when === 'before-action') return halt();
          const value = await action();
          if (stop?.entry === name || options?.attemptEnded?.aborted) return halt();
          const json = value === undefined ? undefined : JSON.stringify(value);
          entries.set(name, json);
          names.push(name);
          return parse(json) as T;
        },
        awakeable<T>() {
          const id = `${invocationId}/awakeable/${awakeables++}`;
          const promise = answers.has(id)
            ? Promise.resolve(answers.get(id) as T)
            : new Promise<T>((resolve) => waiting.set(id, resolve as (value: unknown) => void));
          return { id, promise };
        },
      };
    },
  };
}

function parse(json: string | undefined): unknown {
  return json === undefined ? undefined : JSON.parse(json);
}
