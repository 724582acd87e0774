import { RuntimeCommandError } from './errors.js';
import type { RuntimeProcessExit, RuntimeProcessOutput } from './runtime-process.js';
import { UnreadOutput } from './unread-output.js';

/** After output arrives, a read waits this long for more, so one line printed in pieces comes back whole. */
const READ_SETTLE_MS = 50;

/** More than this much written input the process has not read yet refuses further writes. */
export const maxPendingStdinBytes = 1024 * 1024;

/**
 * The side of a background process (docs/long-running-commands.md) a caller reads: its unread
 * stdout and stderr, capped, its exit once known, and reads that wait for either. The host
 * process (host-process.ts) and the container process (container/container-process.ts) differ in
 * how output arrives and how the process ends; each pushes into this and calls `end` once.
 */
export class BackgroundOutput {
  readonly stdout: UnreadOutput;
  readonly stderr: UnreadOutput;
  /** Settles once, with the exit given to `end`. */
  readonly exited: Promise<RuntimeProcessExit>;
  #exit: RuntimeProcessExit | undefined;
  #resolveExited: (exit: RuntimeProcessExit) => void = () => undefined;
  #wake: (() => void) | undefined;
  // Reads are taken one at a time: two callers waiting at once would split the output between them unpredictably.
  #lastRead: Promise<unknown> = Promise.resolve();

  constructor(maxUnreadBytes: number) {
    this.stdout = new UnreadOutput(maxUnreadBytes);
    this.stderr = new UnreadOutput(maxUnreadBytes);
    this.exited = new Promise<RuntimeProcessExit>((resolve) => {
      this.#resolveExited = resolve;
    });
  }

  /** The exit, once `end` was called. */
  get exit(): RuntimeProcessExit | undefined {
    return this.#exit;
  }

  /** Output arrived: a waiting read looks again. */
  changed(): void {
    this.#wake?.();
  }

  /** The process ended: reads return the rest of the output and this exit. */
  end(exit: RuntimeProcessExit): void {
    this.#exit = exit;
    this.#resolveExited(exit);
    this.changed();
  }

  /** One read: waits up to `waitMs` for some output (or the exit), then lets more settle. */
  read(waitMs: number): Promise<RuntimeProcessOutput> {
    const next = this.#lastRead.then(() => this.#readWhenReady(waitMs));
    this.#lastRead = next.catch(() => undefined);
    return next;
  }

  async #readWhenReady(waitMs: number): Promise<RuntimeProcessOutput> {
    const { stdout, stderr } = this;
    const hasOutput = (): boolean => stdout.size > 0 || stderr.size > 0;
    const deadline = performance.now() + Math.max(0, waitMs);
    if (!hasOutput() && this.#exit === undefined && waitMs > 0) await this.#waitForChange(waitMs);
    // More often arrives right behind the first piece: a short settle returns it together.
    if (hasOutput() && this.#exit === undefined) {
      const settle = Math.min(READ_SETTLE_MS, deadline - performance.now());
      if (settle > 0) await this.#waitForChange(settle);
    }
    const done = this.#exit;
    const out = stdout.take(done !== undefined);
    const err = stderr.take(done !== undefined);
    return {
      stdout: out.text,
      stderr: err.text,
      stdoutDroppedBytes: out.droppedBytes,
      stderrDroppedBytes: err.droppedBytes,
      ...(done !== undefined ? { exit: done } : {}),
    };
  }

  #waitForChange(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        if (this.#wake === done) this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }
}

/**
 * Refuses a write to a background process's stdin that cannot be delivered: the process ended,
 * stdin was closed, or more than `maxPendingStdinBytes` written earlier is still unread.
 */
export function checkStdinWritable(state: { ended: boolean; closed: boolean; pendingBytes: number }): void {
  if (state.ended) throw new RuntimeCommandError('stdin', 'the process has ended');
  if (state.closed) throw new RuntimeCommandError('stdin', 'stdin was closed');
  if (state.pendingBytes > maxPendingStdinBytes)
    throw new RuntimeCommandError(
      'stdin',
      `the process has not read ${state.pendingBytes} bytes written earlier; wait for it to read them`,
    );
}
