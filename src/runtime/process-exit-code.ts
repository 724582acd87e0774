import { constants as osConstants } from 'node:os';

/** How a process ended, as its ChildProcess reported it: a failed start, or its exit. */
export interface ProcessEnding {
  spawnError: NodeJS.ErrnoException | undefined;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
}

/**
 * The exit code as a shell reports it (runs and background processes alike): 128 + n for signal
 * n, 127/126 when the program was not found / not executable, -1 when it could not start for
 * another reason; with the line to add to stderr when it could not start.
 */
export function exitCodeOf(
  ending: ProcessEnding,
  displayName: string,
): { exitCode: number; signal?: string; startFailure?: string } {
  const { spawnError, exit } = ending;
  if (spawnError) {
    return {
      exitCode: spawnError.code === 'ENOENT' ? 127 : spawnError.code === 'EACCES' ? 126 : -1,
      startFailure: `cannot start "${displayName}": ${spawnError.message}\n`,
    };
  }
  if (exit?.signal) return { exitCode: 128 + (osConstants.signals[exit.signal] ?? 0), signal: exit.signal };
  return { exitCode: exit?.code ?? -1 };
}
