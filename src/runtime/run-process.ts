import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { CappedOutput } from './capped-output.js';
import { exitCodeOf, type ProcessEnding } from './process-exit-code.js';
import { killProcessTree } from './process-tree.js';
import type { RuntimeCommand, RuntimeResult } from './runtime-types.js';
import { spawnWithPipes } from './spawn-with-pipes.js';
import { watchProcessEnd } from './watch-process-end.js';

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

    const finish = (ending: ProcessEnding, drainWarning?: string): void => {
      clearTimeout(timer);
      spec.abortSignal?.removeEventListener('abort', onAbort);
      if (drainWarning !== undefined) warnings.push(drainWarning);
      resolve(
        describeOutcome(spec, {
          out: stdout.finish(),
          err: stderr.finish(),
          ...ending,
          setUpError,
          timedOut,
          aborted,
          warnings,
          durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        }),
      );
    };

    outPipe.on('data', (chunk: Buffer) => stdout.push(chunk));
    errPipe.on('data', (chunk: Buffer) => stderr.push(chunk));
    watchProcessEnd(child, 'command', finish);

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

/** How a run ended, as runProcess saw it: what `describeOutcome` turns into the result. */
interface RunEnding extends ProcessEnding {
  out: ReturnType<CappedOutput['finish']>;
  err: ReturnType<CappedOutput['finish']>;
  setUpError: string | undefined;
  timedOut: boolean;
  aborted: boolean;
  warnings: string[];
  durationMs: number;
}

/** The result of an ended run: the exit code as a shell reports it, and a warning for each thing that cut it short. */
function describeOutcome(spec: ProcessSpec, ending: RunEnding): ProcessOutcome {
  const { out, err, setUpError, warnings } = ending;
  const { exitCode, signal, startFailure } = exitCodeOf(ending, spec.displayName);
  let errText = err.text + (startFailure ?? '');
  if (setUpError) {
    warnings.push(setUpError);
    errText = `${errText}${setUpError}\n`;
  }
  if (ending.timedOut) warnings.push(`command timed out after ${spec.timeoutMs} ms; the whole process tree was killed`);
  if (ending.aborted) warnings.push('command aborted by the caller; the whole process tree was killed');
  if (out.truncated) warnings.push(`stdout truncated: kept ${spec.maxOutputBytes} bytes, dropped ${out.droppedBytes}`);
  if (err.truncated) warnings.push(`stderr truncated: kept ${spec.maxOutputBytes} bytes, dropped ${err.droppedBytes}`);
  return {
    stdout: out.text,
    stderr: errText,
    exitCode,
    ...(signal ? { signal } : {}),
    timedOut: ending.timedOut,
    durationMs: ending.durationMs,
    stdoutTruncated: out.truncated,
    stderrTruncated: err.truncated,
    stdoutDroppedBytes: out.droppedBytes,
    stderrDroppedBytes: err.droppedBytes,
    warnings,
  };
}
