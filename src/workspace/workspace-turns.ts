import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The turns a workspace's file-touching work takes (workspace.ts says why): one at a time, in the
 * order asked, with a call made from inside a turn joining it instead of waiting behind itself.
 */
export class WorkspaceTurns {
  /** Set inside a turn: nested calls of the same task do not queue behind themselves. */
  private readonly holder = new AsyncLocalStorage<boolean>();
  private last: Promise<void> = Promise.resolve();
  private count = 0;

  /** Turns running or waiting. */
  get held(): number {
    return this.count;
  }

  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.holder.getStore() === true) return work();
    this.count += 1;
    const previous = this.last;
    let release = (): void => undefined;
    this.last = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      await previous;
      return await this.holder.run(true, work);
    } finally {
      this.count -= 1;
      release();
    }
  }
}
