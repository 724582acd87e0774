import type { ChildProcess } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import type { Readable } from 'node:stream';
import { CappedOutput } from './capped-output.js';
import { killProcessGroup, killProcessTree } from './process-tree.js';
import type { RuntimeCommand, RuntimeResult } from './runtime-types.js';
import { spawnWithPipes } from './spawn-with-pipes.js';

export interface ProcessSpec {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  stdin?: string | Uint8Array;
  timeoutMs: number;
  maxOutputBytes: number;
  abortSignal?: AbortSignal;
  /**
   * Data the process reads on fds 3, 4, ... (each pipe is written in full and closed at once), for a
   * wrapper's arguments and settings that must not appear on its command line.
   */
  inputPipes?: readonly Uint8Array[];
  /** Extra pipes after stdin/stdout/stderr and the input pipes, for a wrapper's control channels. */
  extraPipes?: number;
  /** Open host descriptors handed on after the pipes (see PipedSpawn.sharedDescriptors). */
  sharedDescriptors?: readonly number[];
  /**
   * Called once the process started. A rejection kills the tree and is reported in stderr and
   * warnings: a run whose set-up failed must not go on unconfined.
   */
  onSpawn?: (child: ChildProcess) => Promise<void>;
  /** Shown in messages instead of `file` (the program the caller asked for, not a wrapper). */
  displayName: string;
}

/** A run's result as the runtimes return it, before they add their own warnings; the dropped byte counts are always set. */
export type ProcessOutcome = RuntimeResult & Required<Pick<RuntimeResult, 'stdoutDroppedBytes' | 'stderrDroppedBytes'>>;

/** The parts of a ProcessSpec that every runtime takes unchanged from the command it was given. */
export function commandProcessFields(
  command: RuntimeCommand,
): Pick<ProcessSpec, 'env' | 'stdin' | 'timeoutMs' | 'maxOutputBytes' | 'abortSignal'> {
  return {
    env: { ...command.env },
    ...(command.stdin === undefined ? {} : { stdin: command.stdin }),
    timeoutMs: command.timeoutMs,
    maxOutputBytes: command.maxOutputBytes,
    ...(command.abortSignal ? { abortSignal: command.abortSignal } : {}),
  };
}

/** How long to wait for the output pipes to close after the process ended and its group was killed. */
const PIPE_DRAIN_GRACE_MS = 250;

/**
 * Starts one process in its own process group, feeds stdin, caps both outputs, and when the main
 * process ends (by itself, timeout or abort) kills whatever is left of its group, so a run never
 * leaves work behind. Exit codes follow the shell: 128 + n for signal n, 126/127 when the program
 * cannot be executed or found, -1 when the process could not be started for another reason.
 */
export function runProcess(spec: ProcessSpec): Promise<ProcessOutcome> {
  const started = performance.now();
  const stdout = new CappedOutput(spec.maxOutputBytes);
  const stderr = new CappedOutput(spec.maxOutputBytes);
  const warnings: string[] = [];

  return new Promise<ProcessOutcome>((resolve) => {
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let spawnError: NodeJS.ErrnoException | undefined;
    let openPipes = 2;
    let drainTimer: NodeJS.Timeout | undefined;
    let setUpError: string | undefined;

    const child = spawnWithPipes(spec, spec.stdin === undefined ? 'ignore' : 'pipe');

    // Both are 'pipe' above; only stdin depends on the spec.
    const outPipe = child.stdout as Readable;
    const errPipe = child.stderr as Readable;

    const killTree = (): void => {
      if (child.pid !== undefined) killProcessTree(child.pid);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killTree();
    }, spec.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      killTree();
    };
    if (spec.abortSignal?.aborted) onAbort();
    else spec.abortSignal?.addEventListener('abort', onAbort, { once: true });

    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (drainTimer) clearTimeout(drainTimer);
      spec.abortSignal?.removeEventListener('abort', onAbort);
      const out = stdout.finish();
      const err = stderr.finish();
      let exitCode: number;
      let signal: string | undefined;
      let errText = err.text;
      if (spawnError) {
        exitCode = spawnError.code === 'ENOENT' ? 127 : spawnError.code === 'EACCES' ? 126 : -1;
        errText = `${errText}cannot start "${spec.displayName}": ${spawnError.message}\n`;
      } else if (exit?.signal) {
        signal = exit.signal;
        exitCode = 128 + (osConstants.signals[exit.signal] ?? 0);
      } else {
        exitCode = exit?.code ?? -1;
      }
      if (setUpError) {
        warnings.push(setUpError);
        errText = `${errText}${setUpError}\n`;
      }
      if (timedOut) warnings.push(`command timed out after ${spec.timeoutMs} ms; the whole process tree was killed`);
      if (aborted) warnings.push('command aborted by the caller; the whole process tree was killed');
      if (out.truncated)
        warnings.push(`stdout truncated: kept ${spec.maxOutputBytes} bytes, dropped ${out.droppedBytes}`);
      if (err.truncated)
        warnings.push(`stderr truncated: kept ${spec.maxOutputBytes} bytes, dropped ${err.droppedBytes}`);
      resolve({
        stdout: out.text,
        stderr: errText,
        exitCode,
        ...(signal ? { signal } : {}),
        timedOut,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        stdoutTruncated: out.truncated,
        stderrTruncated: err.truncated,
        stdoutDroppedBytes: out.droppedBytes,
        stderrDroppedBytes: err.droppedBytes,
        warnings,
      });
    };

    const pipeClosed = (): void => {
      openPipes -= 1;
      if (openPipes === 0 && (exit || spawnError)) finish();
    };
    outPipe.on('data', (chunk: Buffer) => stdout.push(chunk));
    errPipe.on('data', (chunk: Buffer) => stderr.push(chunk));
    outPipe.on('close', pipeClosed);
    errPipe.on('close', pipeClosed);

    child.on('error', (error: NodeJS.ErrnoException) => {
      // 'error' also fires for a failed kill or stdin write; only a failed start has no pid.
      if (child.pid !== undefined) return;
      spawnError = error;
      outPipe.destroy();
      errPipe.destroy();
      finish();
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Background jobs die with the run; they would otherwise hold the pipes open forever.
      if (child.pid !== undefined) killProcessGroup(child.pid);
      if (openPipes === 0) {
        finish();
        return;
      }
      drainTimer = setTimeout(() => {
        warnings.push(
          'a process outside the process group kept the output open after the command ended; later output was dropped',
        );
        outPipe.destroy();
        errPipe.destroy();
        finish();
      }, PIPE_DRAIN_GRACE_MS);
    });

    if (spec.onSpawn && child.pid !== undefined) {
      spec.onSpawn(child).catch((error: unknown) => {
        setUpError = `run set-up failed: ${(error as Error).message}`;
        killTree();
      });
    }

    if (child.stdin) {
      // A command that exits without reading its input closes the pipe: that is not an error of the run.
      child.stdin.on('error', () => {});
      child.stdin.end(spec.stdin);
    }
  });
}
