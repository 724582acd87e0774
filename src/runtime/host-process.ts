import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { BackgroundOutput, checkStdinWritable } from './background-output.js';
import { exitCodeOf, type ProcessEnding } from './process-exit-code.js';
import { killProcessTree } from './process-tree.js';
import type { RuntimeProcess, RuntimeProcessExit } from './runtime-process.js';
import type { RuntimeResult } from './runtime-types.js';
import { spawnWithPipes } from './spawn-with-pipes.js';
import type { UnreadOutput } from './unread-output.js';
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

/**
 * Starts one host process detached (its own process group) with stdin, stdout and stderr on
 * pipes and returns the handle. It mirrors runProcess (run-process.ts) — same group kill when the
 * main process ends, same exit codes — but streams: output goes to capped unread buffers, stdin
 * stays open. It is a separate function, not an option of runProcess, because a run's one-shot
 * promise and a handle's long life share little beyond the spawn call.
 */
export function startHostProcess(spec: HostProcessSpec): RuntimeProcess {
  const started = performance.now();
  const output = new BackgroundOutput(spec.maxUnreadBytes);
  const warnings: string[] = [];
  let timedOut = false;
  let killed = false;
  let stdinClosed = false;
  let setUpError: string | undefined;

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
    const exit = await describeProcessExit(spec, {
      ...ending,
      setUpError,
      timedOut,
      killed,
      warnings,
      stderr: output.stderr,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    });
    output.end(exit);
  };
  outPipe.on('data', (chunk: Buffer) => {
    output.stdout.push(chunk);
    output.changed();
  });
  errPipe.on('data', (chunk: Buffer) => {
    output.stderr.push(chunk);
    output.changed();
  });
  watchProcessEnd(child, 'process', (ending, drainWarning) => void finish(ending, drainWarning));
  if (spec.onSpawn && child.pid !== undefined) {
    spec.onSpawn(child).catch((error: unknown) => {
      setUpError = `process set-up failed: ${(error as Error).message}`;
      killTree();
    });
  }

  return {
    id: randomUUID(),
    exited: output.exited,
    async writeStdin(data) {
      checkStdinWritable({
        // Node sets the exit code as the process exits, before its output is in: no write after that.
        ended: output.exit !== undefined || child.exitCode !== null || child.signalCode !== null,
        closed: stdinClosed,
        pendingBytes: input.writableLength,
      });
      input.write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    },
    async closeStdin() {
      stdinClosed = true;
      input.end();
    },
    read: (waitMs) => output.read(waitMs),
    async kill() {
      if (output.exit === undefined) {
        killed = true;
        killTree();
      }
      return output.exited;
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
