import { isAbsolute, normalize } from 'node:path';
import { imageReference } from '../format/skill-image.js';
import { RuntimeCommandError } from './errors.js';
import { isInside } from './is-inside.js';
import type { RuntimeProcessCommand } from './runtime-process.js';
import type { RuntimeCommand } from './runtime-types.js';

/**
 * Longest timeout a runtime accepts: Node's timers hold a signed 32-bit count of milliseconds and
 * fire at once (with a TimeoutOverflowWarning) past it, so a longer one would end the run at once.
 */
export const maxRuntimeTimeoutMs = 2 ** 31 - 1;

/**
 * Checks the fields of a command before it reaches a runtime, so a bad field is refused by name
 * (`RuntimeCommandError`, code `RUNTIME_COMMAND_INVALID`, `field`) instead of surfacing as a
 * confusing spawn failure: exactly one of `command` and `argv`, neither empty nor holding NUL, the
 * environment's names and values, `timeoutMs` within 1..2^31-1, `maxOutputBytes`, `stdin`, and
 * `cwd` lexically inside `workspaceRoot` (both absolute). The workspace layer calls it before every
 * `run` and `start`, so a runtime need not check these again; whoever calls a runtime directly
 * calls it first. It reads no file: what the folders are when the command starts is the runtime's
 * to check (see `WorkspaceRuntime.run`).
 */
export function validateRuntimeCommand(command: RuntimeCommand | RuntimeProcessCommand): void {
  validateProgram(command);
  validateEnvironment(command.env);
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
  const stdin = (command as RuntimeCommand).stdin;
  if (stdin !== undefined && typeof stdin !== 'string' && !(stdin instanceof Uint8Array)) {
    throw new RuntimeCommandError('stdin', 'must be a string or a Uint8Array');
  }
  validateRunId(command as RuntimeCommand);
  const image = (command as RuntimeCommand).image;
  if (image !== undefined && (typeof image !== 'string' || !imageReference.test(image)))
    throw new RuntimeCommandError('image', 'must be an image reference such as "debian:bookworm-slim"');
  const workspaceRoot = absolutePath('workspaceRoot', command.workspaceRoot);
  const cwd = absolutePath('cwd', command.cwd);
  if (!isInside(workspaceRoot, cwd)) {
    throw new RuntimeCommandError('cwd', `"${command.cwd}" is not inside the workspace "${command.workspaceRoot}"`);
  }
}

/** Longest run id accepted: room for an invocation id and a tool-call id, small enough for any ledger key. */
export const maxRunIdLength = 512;

function validateRunId(command: RuntimeCommand): void {
  const { runId, retrySafe } = command;
  if (retrySafe !== undefined && typeof retrySafe !== 'boolean')
    throw new RuntimeCommandError('retrySafe', 'must be true or false');
  if (runId === undefined) return;
  if (typeof runId !== 'string' || runId === '' || runId.length > maxRunIdLength)
    throw new RuntimeCommandError('runId', `must be a non-empty string of at most ${maxRunIdLength} characters`);
  if (/[\u0000-\u001f\u007f]/.test(runId)) throw new RuntimeCommandError('runId', 'must not hold control characters');
}

function validateProgram(command: RuntimeCommand | RuntimeProcessCommand): void {
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
    return;
  }
  const argv = command.argv;
  if (!Array.isArray(argv) || argv.length === 0 || argv.some((part) => typeof part !== 'string')) {
    throw new RuntimeCommandError('argv', 'must be a non-empty array of strings');
  }
  if (argv[0] === '') throw new RuntimeCommandError('argv', 'the program (argv[0]) is empty');
  for (const [index, part] of argv.entries()) refuseNul(`argv[${index}]`, part);
}

function validateEnvironment(env: unknown): void {
  if (typeof env !== 'object' || env === null) {
    throw new RuntimeCommandError('env', 'must be an object of string values (the complete environment)');
  }
  for (const [name, value] of Object.entries(env)) {
    if (name === '' || name.includes('=') || name.includes('\0')) {
      throw new RuntimeCommandError(`env.${name}`, 'a variable name must be non-empty and contain neither "=" nor NUL');
    }
    if (typeof value !== 'string') throw new RuntimeCommandError(`env.${name}`, 'the value must be a string');
    refuseNul(`env.${name}`, value);
  }
}

function absolutePath(field: string, path: unknown): string {
  if (typeof path !== 'string' || !isAbsolute(path)) {
    throw new RuntimeCommandError(field, `must be an absolute path, got ${JSON.stringify(path)}`);
  }
  refuseNul(field, path);
  return normalize(path);
}

function refuseNul(field: string, value: string): void {
  if (value.includes('\0')) throw new RuntimeCommandError(field, 'contains a NUL byte, which no process can receive');
}
