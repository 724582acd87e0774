import { CommandPolicyError } from './errors.js';

export interface CommandPolicyOptions {
  /** When set, only these programs may run (by name, `./`-relative path or basename). */
  allowedCommands?: readonly string[];
  /** These programs never run; a match here wins over the allow list. */
  deniedCommands?: readonly string[];
}

/**
 * With allow or deny lists the command is split into argv and run without a shell, as both seeds
 * do: a shell would let `allowed; anything` through. Without lists, commands run under bash.
 */
export class CommandPolicy {
  readonly allowed: readonly string[] | undefined;
  readonly denied: readonly string[] | undefined;

  constructor(options: CommandPolicyOptions = {}) {
    for (const [option, list] of [['allowedCommands', options.allowedCommands], ['deniedCommands', options.deniedCommands]] as const) {
      if (list !== undefined && (!Array.isArray(list) || list.some((item) => typeof item !== 'string' || item.trim() === ''))) {
        throw new CommandPolicyError(`${option} must be a list of non-empty program names`);
      }
    }
    this.allowed = options.allowedCommands?.map((item) => item.trim());
    this.denied = options.deniedCommands?.map((item) => item.trim());
  }

  get restricted(): boolean {
    return this.allowed !== undefined || this.denied !== undefined;
  }

  /** A one-line description for the tool's description, so the model knows the rules up front. */
  describe(): string {
    if (!this.restricted) return '';
    const allowed = this.allowed === undefined ? '' : ` Allowed commands: ${[...this.allowed].sort().slice(0, 20).join(', ')}.`;
    return ` Restrictions enabled: no shell syntax; one executable + args only; no > < | ; && ||.${allowed}`;
  }

  /** The argv to run, or undefined when unrestricted (run the string under bash). Throws CommandPolicyError. */
  check(command: string): string[] | undefined {
    if (!this.restricted) return undefined;
    const argv = splitCommandLine(command);
    const program = argv[0] as string;
    const names = programNames(program);
    if (this.denied?.some((item) => names.has(item))) {
      throw new CommandPolicyError(`command "${program}" is denied by denied_commands`);
    }
    if (this.allowed !== undefined && !this.allowed.some((item) => names.has(item))) {
      throw new CommandPolicyError(`command "${program}" is not in allowed_commands (${[...this.allowed].sort().join(', ')})`);
    }
    return argv;
  }
}

/** The program as written, without a leading `./`, and its basename: any of them may match a list. */
function programNames(program: string): Set<string> {
  const withoutDot = program.replace(/^(\.\/)+/, '');
  const base = withoutDot.split('/').at(-1) ?? withoutDot;
  return new Set([program, withoutDot, base]);
}

/**
 * Splits like a POSIX shell for quoting only: `'…'`, `"…"` (with `\"`, `\\`, `\$`, `` \` `` escapes)
 * and `\x` outside quotes. Characters that chain, redirect or substitute are refused outright,
 * quoted or not, so a command can never mean more than one program.
 */
export function splitCommandLine(command: string): string[] {
  const forbidden = /[\n\r;&|<>`]|\$\(/.exec(command);
  if (forbidden) {
    throw new CommandPolicyError(
      `shell metacharacter ${JSON.stringify(forbidden[0])} is not allowed when command restrictions are enabled (allowed_commands/denied_commands set); use a single executable with arguments only (no redirects, pipes, chaining or substitution)`,
    );
  }
  const argv: string[] = [];
  let current = '';
  let inWord = false;
  for (let index = 0; index < command.length; index += 1) {
    const character = command[index] as string;
    if (character === ' ' || character === '\t') {
      if (inWord) argv.push(current);
      current = '';
      inWord = false;
    } else if (character === "'") {
      const close = command.indexOf("'", index + 1);
      if (close === -1) throw new CommandPolicyError('unterminated quote in command');
      current += command.slice(index + 1, close);
      index = close;
      inWord = true;
    } else if (character === '"') {
      let closed = false;
      for (index += 1; index < command.length; index += 1) {
        const inner = command[index] as string;
        if (inner === '"') {
          closed = true;
          break;
        }
        if (inner === '\\' && /["\\$`]/.test(command[index + 1] ?? '')) {
          index += 1;
          current += command[index];
        } else {
          current += inner;
        }
      }
      if (!closed) throw new CommandPolicyError('unterminated quote in command');
      inWord = true;
    } else if (character === '\\') {
      if (index + 1 >= command.length) throw new CommandPolicyError('trailing escape in command');
      index += 1;
      current += command[index];
      inWord = true;
    } else {
      current += character;
      inWord = true;
    }
  }
  if (inWord) argv.push(current);
  if (argv.length === 0) throw new CommandPolicyError('command is empty');
  return argv;
}
