import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { RuntimeCommandError } from './errors.js';
import { killProcessGroup, killProcessTree } from './process-tree.js';
import type { RuntimeProcess, RuntimeProcessExit, RuntimeProcessOutput } from './runtime-process.js';
import type { RuntimeResult } from './runtime-types.js';
import { spawnWithPipes } from './spawn-with-pipes.js';
import { UnreadOutput } from './unread-output.js';

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
/** As in run-process.ts: how long the pipes may stay open after the process ended and its group was killed. */
const PIPE_DRAIN_GRACE_MS = 250;

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
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: NodeJS.ErrnoException | undefined;
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

  let openPipes = 2;
  let drainTimer: NodeJS.Timeout | undefined;
  let finishing = false;
  const finish = async (): Promise<void> => {
    if (finishing) return;
    finishing = true;
    clearTimeout(lifetime);
    if (drainTimer) clearTimeout(drainTimer);
    stdinClosed = true;
    input.destroy();
    let exitCode: number;
    let signal: string | undefined;
    if (spawnError) {
      exitCode = spawnError.code === 'ENOENT' ? 127 : spawnError.code === 'EACCES' ? 126 : -1;
      stderr.push(Buffer.from(`cannot start "${spec.displayName}": ${spawnError.message}\n`));
    } else if (exit?.signal) {
      signal = exit.signal;
      exitCode = 128 + (osConstants.signals[exit.signal] ?? 0);
    } else {
      exitCode = exit?.code ?? -1;
    }
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
    finished = {
      exitCode,
      ...(signal ? { signal } : {}),
      timedOut,
      killed,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      ...(limitsHit && limitsHit.length > 0 ? { limitsHit } : {}),
      warnings: [...(released?.warnings ?? []), ...warnings],
    };
    resolveExited(finished);
    notify();
  };
  const pipeClosed = (): void => {
    openPipes -= 1;
    if (openPipes === 0 && (exit || spawnError)) void finish();
  };
  outPipe.on('data', (chunk: Buffer) => {
    stdout.push(chunk);
    notify();
  });
  errPipe.on('data', (chunk: Buffer) => {
    stderr.push(chunk);
    notify();
  });
  outPipe.on('close', pipeClosed);
  errPipe.on('close', pipeClosed);
  child.on('error', (error: NodeJS.ErrnoException) => {
    // 'error' also fires for a failed kill or stdin write; only a failed start has no pid.
    if (child.pid !== undefined) return;
    spawnError = error;
    outPipe.destroy();
    errPipe.destroy();
    void finish();
  });
  child.on('exit', (code, signal) => {
    exit = { code, signal };
    // What it left running in its group dies with it, as with a run.
    if (child.pid !== undefined) killProcessGroup(child.pid);
    if (openPipes === 0) {
      void finish();
      return;
    }
    drainTimer = setTimeout(() => {
      warnings.push(
        'a process outside the process group kept the output open after the process ended; later output was dropped',
      );
      outPipe.destroy();
      errPipe.destroy();
      void finish();
    }, PIPE_DRAIN_GRACE_MS);
  });
  if (spec.onSpawn && child.pid !== undefined) {
    spec.onSpawn(child).catch((error: unknown) => {
      setUpError = `process set-up failed: ${(error as Error).message}`;
      killTree();
    });
  }

  const hasOutput = (): boolean => stdout.size > 0 || stderr.size > 0;
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
      if (finished !== undefined || exit !== undefined) throw new RuntimeCommandError('stdin', 'the process has ended');
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
      const next = lastRead.then(async (): Promise<RuntimeProcessOutput> => {
        const deadline = performance.now() + Math.max(0, waitMs);
        if (!hasOutput() && finished === undefined && waitMs > 0) await waitForChange(waitMs);
        // More often arrives right behind the first piece: a short settle returns it together.
        if (hasOutput() && finished === undefined) {
          const settle = Math.min(READ_SETTLE_MS, deadline - performance.now());
          if (settle > 0) await waitForChange(settle);
        }
        const done = finished;
        const out = stdout.take(done !== undefined);
        const err = stderr.take(done !== undefined);
        return {
          stdout: out.text,
          stderr: err.text,
          stdoutDroppedBytes: out.droppedBytes,
          stderrDroppedBytes: err.droppedBytes,
          ...(done !== undefined ? { exit: done } : {}),
        };
      });
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

/**
 * The background processes a runtime started, by workspace, so that `stopProcesses(workspaceRoot)`
 * reaches every one of them (and only those) when the workspace ends.
 */
export class HostProcessRegistry {
  private readonly byWorkspace = new Map<string, Set<RuntimeProcess>>();

  add(workspaceRoot: string, handle: RuntimeProcess): RuntimeProcess {
    const key = workspaceKey(workspaceRoot);
    let set = this.byWorkspace.get(key);
    if (set === undefined) {
      set = new Set();
      this.byWorkspace.set(key, set);
    }
    set.add(handle);
    void handle.exited.then(() => {
      set.delete(handle);
      if (set.size === 0 && this.byWorkspace.get(key) === set) this.byWorkspace.delete(key);
    });
    return handle;
  }

  /** Kills every process of the workspace and resolves once all have ended. */
  async stop(workspaceRoot: string): Promise<void> {
    const set = this.byWorkspace.get(workspaceKey(workspaceRoot));
    if (set === undefined) return;
    await Promise.all([...set].map((handle) => handle.kill()));
  }
}

/** The same workspace named through a link or by its real path is one workspace. */
function workspaceKey(workspaceRoot: string): string {
  try {
    return realpathSync(workspaceRoot);
  } catch {
    return resolve(workspaceRoot);
  }
}
