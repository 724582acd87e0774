import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { RuntimeCommandError } from './errors.js';
import { exitCodeOf, type ProcessEnding } from './process-exit-code.js';
import { killProcessTree } from './process-tree.js';
import type { RuntimeProcess, RuntimeProcessExit, RuntimeProcessOutput } from './runtime-process.js';
import type { RuntimeResult } from './runtime-types.js';
import { spawnWithPipes } from './spawn-with-pipes.js';
import { UnreadOutput } from './unread-output.js';
import { watchProcessEnd } from './watch-process-end.js';

/** How to start one background host process (the local runtime's program, or bubblewrap for the sandbox). */
export interface HostProcessSpec {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Lifetime: the process tree is killed after this many milliseconds. */
  lifetimeMs: number;
  /** Unread bytes kept of stdout and of stderr each. */
  maxUnreadBytes: number;
  /** As ProcessSpec.inputPipes (run-process.ts): written in full on fds 3, 4, ... and closed. */
  inputPipes?: readonly Uint8Array[];
  extraPipes?: number;
  /** Open host descriptors handed on after the pipes (see PipedSpawn.sharedDescriptors). */
  sharedDescriptors?: readonly number[];
  /** As ProcessSpec.onSpawn: a rejection kills the tree and is reported. */
  onSpawn?: (child: ChildProcess) => Promise<void>;
  /** Called once after the process ended, before its exit is reported: releases what the runtime set up, reports caps reached. */
  onExit?: () => Promise<{ warnings: string[]; limitsHit?: RuntimeResult['limitsHit'] }>;
  displayName: string;
}

/** More than this much written input the process has not read yet refuses further writes. */
export const maxPendingStdinBytes = 1024 * 1024;

/** After output arrives, a read waits this long for more, so one line printed in pieces comes back whole. */
const READ_SETTLE_MS = 50;

/**
 * Starts one host process detached (its own process group) with stdin, stdout and stderr on
 * pipes and returns the handle. It mirrors runProcess (run-process.ts) — same group kill when the
 * main process ends, same exit codes — but streams: output goes to capped unread buffers, stdin
 * stays open. It is a separate function, not an option of runProcess, because a run's one-shot
 * promise and a handle's long life share little beyond the spawn call.
 */
export function startHostProcess(spec: HostProcessSpec): RuntimeProcess {
  const started = performance.now();
  const stdout = new UnreadOutput(spec.maxUnreadBytes);
  const stderr = new UnreadOutput(spec.maxUnreadBytes);
  const warnings: string[] = [];
  let timedOut = false;
  let killed = false;
  let stdinClosed = false;
  let setUpError: string | undefined;
  let finished: RuntimeProcessExit | undefined;
  let wake: (() => void) | undefined;
  let resolveExited = (_exit: RuntimeProcessExit): void => undefined;
  const exited = new Promise<RuntimeProcessExit>((resolve) => {
    resolveExited = resolve;
  });
  const notify = (): void => {
    wake?.();
  };

  const child = spawnWithPipes(spec, 'pipe');
  const input = child.stdin as Writable;
  // A process that exits without reading its input closes the pipe: not an error of the caller's.
  input.on('error', () => {});
  const outPipe = child.stdout as Readable;
  const errPipe = child.stderr as Readable;
  const killTree = (): void => {
    if (child.pid !== undefined) killProcessTree(child.pid);
  };
  const lifetime = setTimeout(() => {
    timedOut = true;
    killTree();
  }, spec.lifetimeMs);

  let finishing = false;
  const finish = async (ending: ProcessEnding, drainWarning?: string): Promise<void> => {
    if (finishing) return;
    finishing = true;
    clearTimeout(lifetime);
    if (drainWarning !== undefined) warnings.push(drainWarning);
    stdinClosed = true;
    input.destroy();
    finished = await describeProcessExit(spec, {
      ...ending,
      setUpError,
      timedOut,
      killed,
      warnings,
      stderr,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    });
    resolveExited(finished);
    notify();
  };
  outPipe.on('data', (chunk: Buffer) => {
    stdout.push(chunk);
    notify();
  });
  errPipe.on('data', (chunk: Buffer) => {
    stderr.push(chunk);
    notify();
  });
  watchProcessEnd(child, 'process', (ending, drainWarning) => void finish(ending, drainWarning));
  if (spec.onSpawn && child.pid !== undefined) {
    spec.onSpawn(child).catch((error: unknown) => {
      setUpError = `process set-up failed: ${(error as Error).message}`;
      killTree();
    });
  }

  const waitForChange = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        if (wake === done) wake = undefined;
        resolve();
      }
      wake = done;
    });
  // Reads are taken one at a time: two callers waiting at once would split the output between them unpredictably.
  let lastRead: Promise<unknown> = Promise.resolve();

  return {
    id: randomUUID(),
    exited,
    async writeStdin(data) {
      // Set by Node as the process exits, before its output is in: no write after that.
      const hasExited = child.exitCode !== null || child.signalCode !== null;
      if (finished !== undefined || hasExited) throw new RuntimeCommandError('stdin', 'the process has ended');
      if (stdinClosed) throw new RuntimeCommandError('stdin', 'stdin was closed');
      if (input.writableLength > maxPendingStdinBytes) {
        throw new RuntimeCommandError(
          'stdin',
          `the process has not read ${input.writableLength} bytes written earlier; wait for it to read them`,
        );
      }
      input.write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    },
    async closeStdin() {
      stdinClosed = true;
      input.end();
    },
    read(waitMs) {
      const next = lastRead.then(() =>
        readWhenReady({ stdout, stderr, finished: () => finished, waitForChange }, waitMs),
      );
      lastRead = next.catch(() => undefined);
      return next;
    },
    async kill() {
      if (finished === undefined) {
        killed = true;
        killTree();
      }
      return exited;
    },
  };
}

/** What `describeProcessExit` reads of an ended background process. */
interface BackgroundEnding extends ProcessEnding {
  setUpError: string | undefined;
  timedOut: boolean;
  killed: boolean;
  warnings: string[];
  stderr: UnreadOutput;
  durationMs: number;
}

/**
 * The exit of an ended background process: the exit code as a shell reports it, a warning for
 * each thing that ended it early, and what the runtime's `onExit` released and reports.
 */
async function describeProcessExit(spec: HostProcessSpec, ending: BackgroundEnding): Promise<RuntimeProcessExit> {
  const { exitCode, signal, startFailure } = exitCodeOf(ending, spec.displayName);
  const { warnings, stderr, setUpError, timedOut, killed } = ending;
  if (startFailure !== undefined) stderr.push(Buffer.from(startFailure));
  if (setUpError) {
    warnings.push(setUpError);
    stderr.push(Buffer.from(`${setUpError}\n`));
  }
  if (timedOut)
    warnings.push(`process reached its lifetime of ${spec.lifetimeMs} ms; the whole process tree was killed`);
  if (killed && !timedOut) warnings.push('process killed; the whole process tree was killed');
  const released = await spec.onExit?.().catch((error: unknown) => ({
    warnings: [`releasing the process's resources failed: ${(error as Error).message}`],
  }));
  const limitsHit = released && 'limitsHit' in released ? released.limitsHit : undefined;
  return {
    exitCode,
    ...(signal ? { signal } : {}),
    timedOut,
    killed,
    durationMs: ending.durationMs,
    ...(limitsHit && limitsHit.length > 0 ? { limitsHit } : {}),
    warnings: [...(released?.warnings ?? []), ...warnings],
  };
}

/** One read of a background process's output: waits up to `waitMs` for some (or the exit), then lets more settle. */
export async function readWhenReady(
  process: {
    stdout: UnreadOutput;
    stderr: UnreadOutput;
    finished: () => RuntimeProcessExit | undefined;
    waitForChange: (ms: number) => Promise<void>;
  },
  waitMs: number,
): Promise<RuntimeProcessOutput> {
  const { stdout, stderr, finished, waitForChange } = process;
  const hasOutput = (): boolean => stdout.size > 0 || stderr.size > 0;
  const deadline = performance.now() + Math.max(0, waitMs);
  if (!hasOutput() && finished() === undefined && waitMs > 0) await waitForChange(waitMs);
  // More often arrives right behind the first piece: a short settle returns it together.
  if (hasOutput() && finished() === undefined) {
    const settle = Math.min(READ_SETTLE_MS, deadline - performance.now());
    if (settle > 0) await waitForChange(settle);
  }
  const done = finished();
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
