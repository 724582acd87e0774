import { CliUsageError, type CliIo } from './command.js';
import { commands } from './commands/index.js';

function defaultIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    env: process.env,
    stdin: process.stdin,
  };
}

function helpText(): string {
  const width = Math.max(...commands.map((command) => command.name.length), 4);
  const lines = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return ['Usage: skillbox <command> [options]', '', 'Commands:', ...lines, '', 'Run `skillbox help <command>` for its options.', ''].join('\n');
}

/** Runs one `skillbox` invocation and returns its exit code. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const topic = name === 'help' ? rest[0] : undefined;
    const command = topic === undefined ? undefined : commands.find((candidate) => candidate.name === topic);
    io.stdout(command ? `${command.usage.trimEnd()}\n` : helpText());
    return 0;
  }
  if (name === '--version' || name === '-v') {
    const { readFile } = await import('node:fs/promises');
    const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    io.stdout(`${manifest.version}\n`);
    return 0;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) {
    io.stderr(`skillbox: unknown command "${name}"\n\n${helpText()}`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof CliUsageError) {
      io.stderr(`skillbox ${command.name}: ${error.message}\n\n${command.usage.trimEnd()}\n`);
      return 2;
    }
    if (error instanceof Error && 'code' in error && error.name !== 'Error') {
      io.stderr(`skillbox ${command.name}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
