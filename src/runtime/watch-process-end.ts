import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { ProcessEnding } from './process-exit-code.js';
import { killProcessGroup } from './process-tree.js';

/** How long to wait for the output pipes to close after the process ended and its group was killed. */
const PIPE_DRAIN_GRACE_MS = 250;

/**
 * Calls `onEnd` once, when a process started on pipes has ended and its output is in: after its
 * exit and the close of stdout and stderr, or at once when it could not start. Runs and background
 * processes end the same way: when the main process exits, what it left running in its group is
 * killed (background jobs would otherwise hold the pipes open forever), and pipes that a process
 * outside the group still holds are cut after a short grace, with the warning passed to `onEnd`.
 */
export function watchProcessEnd(
  child: ChildProcess,
  subject: 'command' | 'process',
  onEnd: (ending: ProcessEnding, drainWarning?: string) => void,
): void {
  // Both are 'pipe' for every spawn this watches.
  const pipes = [child.stdout as Readable, child.stderr as Readable];
  const ending: ProcessEnding = { spawnError: undefined, exit: undefined };
  let openPipes = pipes.length;
  let drainTimer: NodeJS.Timeout | undefined;
  let ended = false;
  const end = (drainWarning?: string): void => {
    if (ended) return;
    ended = true;
    if (drainTimer) clearTimeout(drainTimer);
    onEnd(ending, drainWarning);
  };
  const cutPipes = (): void => {
    for (const pipe of pipes) pipe.destroy();
  };
  for (const pipe of pipes) {
    pipe.on('close', () => {
      openPipes -= 1;
      if (openPipes === 0 && (ending.exit || ending.spawnError)) end();
    });
  }
  child.on('error', (error: NodeJS.ErrnoException) => {
    // 'error' also fires for a failed kill or stdin write; only a failed start has no pid.
    if (child.pid !== undefined) return;
    ending.spawnError = error;
    cutPipes();
    end();
  });
  child.on('exit', (code, signal) => {
    ending.exit = { code, signal };
    if (child.pid !== undefined) killProcessGroup(child.pid);
    if (openPipes === 0) {
      end();
      return;
    }
    drainTimer = setTimeout(() => {
      cutPipes();
      end(
        `a process outside the process group kept the output open after the ${subject} ended; later output was dropped`,
      );
    }, PIPE_DRAIN_GRACE_MS);
  });
}
