import { realpathSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { RuntimeCommandError } from './errors.js';
import { isInside } from './is-inside.js';
import type { RuntimeCommand } from './runtime-types.js';

/**
 * Longest timeout a runtime accepts: Node's timers hold a signed 32-bit count of milliseconds and
 * fire at once (with a TimeoutOverflowWarning) past it, so a longer one would end the run at once.
 */
export const maxRuntimeTimeoutMs = 2 ** 31 - 1;

/**
 * Checks a RuntimeCommand before anything is started, so a bad field is reported by name instead
 * of surfacing as a confusing spawn failure. Returns the canonical workspace root and cwd.
 */
export async function validateRuntimeCommand(command: RuntimeCommand): Promise<{ workspaceRoot: string; cwd: string }> {
  const hasCommand = command.command !== undefined;
  const hasArgv = command.argv !== undefined;
  if (hasCommand === hasArgv) {
    throw new RuntimeCommandError(
      'command',
      'give exactly one of `command` (a shell string) or `argv` (program and arguments)',
    );
  }
  if (hasCommand) {
    if (typeof command.command !== 'string' || command.command.trim() === '') {
      throw new RuntimeCommandError('command', 'must be a non-empty string');
    }
    refuseNul('command', command.command);
  } else {
    const argv = command.argv;
    if (!Array.isArray(argv) || argv.length === 0 || argv.some((part) => typeof part !== 'string')) {
      throw new RuntimeCommandError('argv', 'must be a non-empty array of strings');
    }
    if (argv[0] === '') throw new RuntimeCommandError('argv', 'the program (argv[0]) is empty');
    for (const [index, part] of argv.entries()) refuseNul(`argv[${index}]`, part);
  }

  if (typeof command.env !== 'object' || command.env === null) {
    throw new RuntimeCommandError('env', 'must be an object of string values (the complete environment)');
  }
  for (const [name, value] of Object.entries(command.env)) {
    if (name === '' || name.includes('=') || name.includes('\0')) {
      throw new RuntimeCommandError(`env.${name}`, 'a variable name must be non-empty and contain neither "=" nor NUL');
    }
    if (typeof value !== 'string') throw new RuntimeCommandError(`env.${name}`, 'the value must be a string');
    refuseNul(`env.${name}`, value);
  }

  if (!Number.isFinite(command.timeoutMs) || command.timeoutMs <= 0) {
    throw new RuntimeCommandError(
      'timeoutMs',
      `must be a positive number of milliseconds, got ${String(command.timeoutMs)}`,
    );
  }
  if (command.timeoutMs > maxRuntimeTimeoutMs) {
    throw new RuntimeCommandError(
      'timeoutMs',
      `must be at most ${maxRuntimeTimeoutMs} ms (about 24.8 days), got ${command.timeoutMs}`,
    );
  }
  if (!Number.isInteger(command.maxOutputBytes) || command.maxOutputBytes < 0) {
    throw new RuntimeCommandError(
      'maxOutputBytes',
      `must be a non-negative integer, got ${String(command.maxOutputBytes)}`,
    );
  }
  if (command.stdin !== undefined && typeof command.stdin !== 'string' && !(command.stdin instanceof Uint8Array)) {
    throw new RuntimeCommandError('stdin', 'must be a string or a Uint8Array');
  }

  // The usual command runs in its workspace's root: one lookup then serves both fields.
  const workspaceRoot = existingDirectory('workspaceRoot', command.workspaceRoot);
  const cwd = command.cwd === command.workspaceRoot ? workspaceRoot : existingDirectory('cwd', command.cwd);
  if (!isInside(workspaceRoot, cwd)) {
    throw new RuntimeCommandError('cwd', `"${command.cwd}" is not inside the workspace "${command.workspaceRoot}"`);
  }
  return { workspaceRoot, cwd };
}

/**
 * The folder's canonical path. Looked up synchronously on purpose: two system calls on a local
 * folder take microseconds, while the thread pool's round trips cost more than the work. Sent there
 * (as this check once did), the four look-ups of a run woke four pool threads that fought over
 * the pool's lock, and a run took about 2 ms more CPU in this process under load with a dozen
 * more context switches (docs/benchmarks.md, "Where the sandbox's own CPU goes").
 */
function existingDirectory(field: string, path: unknown): string {
  if (typeof path !== 'string' || !isAbsolute(path)) {
    throw new RuntimeCommandError(field, `must be an absolute path, got ${JSON.stringify(path)}`);
  }
  let canonical: string;
  try {
    canonical = realpathSync.native(path);
  } catch {
    throw new RuntimeCommandError(field, `"${path}" does not exist`);
  }
  // The canonical path, not the given one: the folder the run gets is the one that was checked.
  let isDirectory: boolean;
  try {
    isDirectory = statSync(canonical).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) throw new RuntimeCommandError(field, `"${path}" is not a directory`);
  return canonical;
}

function refuseNul(field: string, value: string): void {
  if (value.includes('\0')) throw new RuntimeCommandError(field, 'contains a NUL byte, which no process can receive');
}
