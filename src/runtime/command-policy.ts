import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { CommandPolicyError } from './errors.js';
import { findExecutable, SYSTEM_PATH } from './find-executable.js';
import { launcherExample } from './launcher-programs.js';

export interface CommandPolicyOptions {
  /**
   * When set, only these programs may run: names found in the system folders (`SYSTEM_PATH`) or
   * absolute paths. A command's program must resolve to the same file, by the same name.
   */
  allowedCommands?: readonly string[];
  /** These programs never run; a match here (by name or by resolved path) wins over the allow list. */
  deniedCommands?: readonly string[];
}

/**
 * With allow or deny lists the command is split into argv and run without a shell, because
 * a shell would let `allowed; anything` through. Without lists, commands run under bash.
 *
 * Programs are looked up in the fixed system folders only, never in the workspace: everything
 * there (the skill's `bin/`, staged inputs, files an earlier command wrote) may have been put there
 * by the model, so a name or path reaching into it could be any code. The run's PATH is fixed to
 * the same folders (see `buildRunEnvironment`), and argv[0] becomes the path checked here, so what
 * runs is what was judged.
 */
export class CommandPolicy {
  readonly allowed: readonly string[] | undefined;
  readonly denied: readonly string[] | undefined;
  private readonly allowedPaths: ReadonlySet<string> | undefined;
  private readonly deniedPaths: ReadonlySet<string>;

  constructor(options: CommandPolicyOptions = {}) {
    for (const [option, list] of [
      ['allowedCommands', options.allowedCommands],
      ['deniedCommands', options.deniedCommands],
    ] as const) {
      if (
        list !== undefined &&
        (!Array.isArray(list) || list.some((item) => typeof item !== 'string' || item.trim() === ''))
      ) {
        throw new CommandPolicyError(`${option} must be a list of non-empty program names`);
      }
    }
    this.allowed = options.allowedCommands?.map((item) => item.trim());
    this.denied = options.deniedCommands?.map((item) => item.trim());
    this.allowedPaths =
      this.allowed === undefined
        ? undefined
        : new Set(
            this.allowed.map((item) => {
              const resolved = resolveProgram(item);
              if (resolved === undefined) {
                throw new CommandPolicyError(
                  `allowedCommands entry "${item}" is not ${isAbsolute(item) ? 'an executable file' : item.includes('/') ? 'a program name or an absolute path' : `an executable in the system folders ${SYSTEM_PATH}`}`,
                );
              }
              const example =
                launcherExample(basename(item)) ??
                launcherExample(basename(resolved.judged)) ??
                launcherExample(basename(realpathOrSelf(resolved.path)));
              if (example !== undefined) {
                throw new CommandPolicyError(
                  `allowedCommands entry "${item}" runs other programs (${example.replaceAll('CMD', 'any-command')}), so allowing it would allow every command: ` +
                    'the allow list restricts which program starts, not what that program does. Leave it out, or drop allowedCommands and rely on the sandbox (see "Command lists" in docs/workspaces.md)',
                );
              }
              return resolved.judged;
            }),
          );
    // A denied name that is not installed is still denied by name.
    this.deniedPaths = new Set((this.denied ?? []).flatMap((item) => resolveProgram(item)?.judged ?? []));
  }

  get restricted(): boolean {
    return this.allowed !== undefined || this.denied !== undefined;
  }

  /** A one-line description for the tool's description, so the model knows the rules up front. */
  describe(): string {
    if (!this.restricted) return '';
    const allowed =
      this.allowed === undefined ? '' : ` Allowed commands: ${[...this.allowed].sort().slice(0, 20).join(', ')}.`;
    return ` Restrictions enabled: no shell syntax; one executable + args only; no > < | ; && ||.${allowed}`;
  }

  /**
   * The argv to run (argv[0] replaced by the program's absolute path), or undefined when
   * unrestricted (run the string under bash). Throws CommandPolicyError.
   */
  check(command: string): string[] | undefined {
    if (!this.restricted) return undefined;
    const argv = splitCommandLine(command);
    const program = argv[0] as string;
    const resolved = resolveProgram(program);
    const names = programNames(program);
    if (
      this.denied?.some((item) => names.has(item)) ||
      (resolved !== undefined && this.deniedPaths.has(resolved.judged))
    ) {
      throw new CommandPolicyError(`command "${program}" is denied by deniedCommands`);
    }
    if (this.allowedPaths !== undefined && (resolved === undefined || !this.allowedPaths.has(resolved.judged))) {
      const why = program.includes('/')
        ? `is a path that is not one of the allowed programs; give the program's name (looked up in ${SYSTEM_PATH}) or its absolute path`
        : `is not in allowedCommands (${[...(this.allowed ?? [])].sort().join(', ')})`;
      throw new CommandPolicyError(`command "${program}" ${why}`);
    }
    if (resolved === undefined) {
      if (!program.includes('/'))
        throw new CommandPolicyError(`command "${program}" is not a program in the system folders ${SYSTEM_PATH}`);
      return argv;
    }
    return [resolved.path, ...argv.slice(1)];
  }
}

/**
 * Where a program is: a name is looked up in the system folders, an absolute path taken as is,
 * anything else (a path relative to the cwd, inside the workspace) is not resolved. `judged` has
 * its folder canonical but keeps the file name, so `/bin/echo` on a merged-/usr system is
 * `/usr/bin/echo`, while a multi-call binary (busybox) reached as `sh` is not the one reached as `echo`.
 */
function resolveProgram(program: string): { path: string; judged: string } | undefined {
  if (program.includes('/') && !isAbsolute(program)) return undefined;
  const found = findExecutable(program, SYSTEM_PATH);
  if (found === undefined) return undefined;
  try {
    return { path: found, judged: join(realpathSync(dirname(found)), basename(found)) };
  } catch {
    return undefined;
  }
}

/** The file a link chain ends at (python3 -> python3.11, awk -> mawk), or `file` when it cannot be resolved. */
function realpathOrSelf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/** The program as written, without a leading `./`, and its basename: any of them may match the deny list. */
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
      `shell metacharacter ${JSON.stringify(forbidden[0])} is not allowed when command restrictions are enabled (allowedCommands or deniedCommands set); use a single executable with arguments only (no redirects, pipes, chaining or substitution)`,
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
