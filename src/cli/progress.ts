import type { CliIo } from './command.js';

export interface Progress {
  /** What is being done now, e.g. "counting tokens of 636 skills". */
  update(activity: string): void;
  /** Stops and clears the line; call it before writing results. */
  done(): void;
}

export interface ProgressOptions {
  /** Work shorter than this shows nothing (default 1,000 ms). */
  delayMs?: number;
  /** How often the elapsed time is redrawn (default 250 ms). */
  intervalMs?: number;
}

const clearLine = '\r\u001b[2K';

/**
 * A status line on standard error for work that takes over a second: "skillbox tokens: counting
 * tokens of 636 skills… 3s", redrawn in place and cleared when done. Only on a terminal: in a
 * pipe or a log the redraws would be noise, and standard output is never touched.
 */
export function startProgress(io: CliIo, command: string, activity: string, options: ProgressOptions = {}): Progress {
  if (io.stderrIsTerminal !== true) return { update: () => {}, done: () => {} };
  const started = Date.now();
  let current = activity;
  let shown = false;
  const draw = (): void => {
    shown = true;
    io.stderr(`${clearLine}skillbox ${command}: ${current}… ${Math.floor((Date.now() - started) / 1000)}s`);
  };
  let interval: NodeJS.Timeout | undefined;
  // unref: a forgotten done() must not keep the process alive.
  const delay = setTimeout(() => {
    draw();
    interval = setInterval(draw, options.intervalMs ?? 250).unref();
  }, options.delayMs ?? 1000).unref();
  return {
    update(next) {
      current = next;
      if (shown) draw();
    },
    done() {
      clearTimeout(delay);
      clearInterval(interval);
      if (shown) io.stderr(clearLine);
      shown = false;
    },
  };
}
