import { redactUrlCredentials } from '../hub/url-credentials.js';
import { type CliIo, CliUsageError } from './command.js';
import { commands } from './commands/index.js';
import { didYouMean } from './did-you-mean.js';
import { readPackageVersion } from './package-version.js';
import { paint } from './terminal-style.js';

function defaultIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    env: process.env,
    stdin: process.stdin,
    stderrIsTerminal: process.stderr.isTTY === true,
    stdinIsTerminal: process.stdin.isTTY === true,
    stdoutIsTerminal: process.stdout.isTTY === true,
  };
}

function helpText(): string {
  const width = Math.max(...commands.map((command) => command.name.length), 4);
  const lines = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return [
    'Usage: skillbox <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Options:',
    '  -h, --help     this text; `skillbox <command> --help` (or `skillbox help <command>`) for a command',
    '  -v, --version  the version of skillbox',
    `  --locked       (${repositoryCommands.join(', ')}) load a skill only if it matches skills-lock.json`,
    '',
  ].join('\n');
}

/** Commands that open a skills repository, and so take `--locked`. */
const repositoryCommands = ['list', 'show', 'prompt', 'tokens', 'run', 'chat', 'mcp'];

const lockedHelp = `
Skills from an install (skillbox add, skills add):
  --locked     serve a skill only while its files match skills-lock.json (the lock of the
               folder it is installed in); a changed, added or removed file leaves that skill
               out, named with the file on standard error and under "skipped"; the others stay.
`;

/** A command's --help text; a repository command's says what `--locked` does to it. */
function usageOf(name: string, usage: string): string {
  const text = usage.trimEnd();
  return repositoryCommands.includes(name) ? `${text}\n${lockedHelp.trimEnd()}\n` : `${text}\n`;
}

/**
 * `--locked` (before a `--` separator) taken out of a repository command's arguments: it is one
 * switch of the repository every such command opens (see skill-roots.ts), not an option of each.
 */
function takeLockedFlag(name: string, args: string[]): { args: string[]; locked: boolean } {
  if (!repositoryCommands.includes(name)) return { args, locked: false };
  const separator = args.indexOf('--');
  const end = separator === -1 ? args.length : separator;
  const before = args.slice(0, end);
  if (!before.includes('--locked')) return { args, locked: false };
  return { args: [...before.filter((argument) => argument !== '--locked'), ...args.slice(end)], locked: true };
}

/**
 * Whether the arguments ask for help: `--help` or `-h` before a `--` separator (after it they belong
 * to the command `skillbox run` runs).
 */
function asksForHelp(args: string[]): boolean {
  const separator = args.indexOf('--');
  return (separator === -1 ? args : args.slice(0, separator)).some(
    (argument) => argument === '--help' || argument === '-h',
  );
}

/** Runs one `skillbox` invocation and returns its exit code. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const topic = name === 'help' ? rest[0] : undefined;
    if (topic === undefined) {
      io.stdout(helpText());
      return 0;
    }
    const entry = commands.find((candidate) => candidate.name === topic);
    if (!entry) {
      io.stderr(
        `skillbox help: unknown command "${topic}".${didYouMean(
          topic,
          commands.map((candidate) => candidate.name),
        )}\n\n${helpText()}`,
      );
      return 2;
    }
    io.stdout(usageOf(topic, (await entry.load()).usage));
    return 0;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout(`${readPackageVersion()}\n`);
    return 0;
  }
  const entry = commands.find((candidate) => candidate.name === name);
  if (!entry) {
    const what = name.startsWith('-') ? `unknown option ${name}` : `unknown command "${name}"`;
    const names = name.startsWith('-') ? ['--help', '--version'] : commands.map((candidate) => candidate.name);
    io.stderr(`skillbox: ${what}.${didYouMean(name, names)}\n\n${helpText()}`);
    return 2;
  }
  const command = await entry.load();
  if (asksForHelp(rest)) {
    io.stdout(usageOf(name, command.usage));
    return 0;
  }
  const { args: commandArgs, locked } = takeLockedFlag(name, rest);
  try {
    return await command.run(commandArgs, locked ? { ...io, locked: true } : io);
  } catch (error) {
    if (error instanceof CliUsageError) {
      io.stderr(
        `${paint(io, 'stderr', 'red', `skillbox ${command.name}:`)} ${error.message}\n\n${command.usage.trimEnd()}\n`,
      );
      return 2;
    }
    if (error instanceof Error && 'code' in error && error.name !== 'Error') {
      // The last place a message passes before a terminal or a CI log: no URL password or token.
      io.stderr(`${paint(io, 'stderr', 'red', `skillbox ${command.name}:`)} ${redactUrlCredentials(error.message)}\n`);
      return 1;
    }
    throw error;
  }
}
