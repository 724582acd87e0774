import type { RuntimeCommand, RuntimeResult } from './runtime-types.js';

/**
 * A command to start in the background (`WorkspaceRuntime.start`). The fields are those of a run,
 * validated the same way, with two read differently: `timeoutMs` is the process's lifetime (it and
 * everything it started are killed when it is reached), and `maxOutputBytes` is how much UNREAD
 * output is kept of stdout and of stderr each (older unread output is dropped and counted, so a
 * process that floods its output costs at most that much memory however long it runs). There is
 * no `stdin`: the process's input stays open for `writeStdin` until `closeStdin`.
 */
export type RuntimeProcessCommand = Omit<RuntimeCommand, 'stdin' | 'abortSignal'>;

/** How a background process ended. */
export interface RuntimeProcessExit {
  /** As for a run: 128 + n for signal n, 127/126 when the program was not found/not executable, -1 when it could not start. */
  exitCode: number;
  /** Name of the signal that ended it, when one did. */
  signal?: string;
  /** True when it was killed for reaching its lifetime (`timeoutMs`). */
  timedOut: boolean;
  /** True when it was ended by `kill()` or because its workspace's processes were stopped. */
  killed: boolean;
  durationMs: number;
  /** Resource caps of the runtime it reached (as `RuntimeResult.limitsHit`). */
  limitsHit?: RuntimeResult['limitsHit'];
  warnings: string[];
}

/** Output a background process wrote since the previous read. */
export interface RuntimeProcessOutput {
  stdout: string;
  stderr: string;
  /** Unread bytes of stdout / stderr dropped since the previous read because the buffer was full (the oldest go first). */
  stdoutDroppedBytes: number;
  stderrDroppedBytes: number;
  /** Set when the process has ended and this read returned the last of its output. */
  exit?: RuntimeProcessExit;
}

/**
 * A process started by `WorkspaceRuntime.start`: confined exactly as a run of the same runtime,
 * in its own process group (sandbox: its own pid namespace), killed with everything it started when
 * it exits, reaches its lifetime, is killed, or its workspace's processes are stopped.
 */
export interface RuntimeProcess {
  /** The runtime's id of the process: unique within the runtime, not a secret (callers scope access themselves). */
  readonly id: string;
  /**
   * Writes to the process's stdin. Refused (RuntimeCommandError, field `stdin`) once stdin was
   * closed or the process ended, and when the process leaves more than a megabyte of earlier input unread.
   */
  writeStdin(data: string | Uint8Array): Promise<void>;
  /** Closes stdin (the process reads end-of-file). Does nothing when it is closed already. */
  closeStdin(): Promise<void>;
  /**
   * The output written since the previous read. Waits up to `waitMs` for some to arrive (or for
   * the exit) when there is none yet; returns at once otherwise.
   */
  read(waitMs: number): Promise<RuntimeProcessOutput>;
  /** Kills the process and everything it started; resolves once it has ended. */
  kill(): Promise<RuntimeProcessExit>;
  /** Resolves when the process has ended (its output may still be unread). */
  readonly exited: Promise<RuntimeProcessExit>;
}
