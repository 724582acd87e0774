/** Where a command writes and what it sees; tests pass their own. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Standard input, when the command reads it (chat). */
  stdin?: NodeJS.ReadableStream;
  /**
   * Whether standard error is a terminal: colours and progress lines are written only then (see
   * terminal-style.ts). Absent means no, so tests and pipes get plain text.
   */
  stderrIsTerminal?: boolean;
  /** `--locked` was given: repositories check every skill against skills-lock.json before loading it. */
  locked?: boolean;
  /** Whether standard input is a terminal: `add` asks before installing only then. */
  stdinIsTerminal?: boolean;
  /** Whether standard output is a terminal (colours on standard output). */
  stdoutIsTerminal?: boolean;
  /** Stops a command that serves until stopped (`inspect`), as SIGINT or SIGTERM do; for tests and embedders. */
  signal?: AbortSignal;
}

export interface CliCommand {
  name: string;
  /** Full usage text printed by `skillbox help NAME` and on argument errors. */
  usage: string;
  /** Returns the process exit code. Throw CliUsageError for bad arguments. */
  run(args: string[], io: CliIo): Promise<number>;
}

/** Bad command-line arguments: printed with the command's usage, exit code 2. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}
