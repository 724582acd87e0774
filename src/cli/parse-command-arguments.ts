import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliUsageError } from './command.js';

/**
 * node:util parseArgs, with its TypeErrors (unknown option, missing value) turned into
 * CliUsageError so every command prints its usage and exits 2 the same way.
 */
export function parseCommandArguments<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    if (error instanceof CliUsageError) throw error;
    throw new CliUsageError((error as Error).message);
  }
}

/** The value of an option that takes one of a fixed set of words. */
export function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], option: string, fallback: T): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new CliUsageError(`${option} must be one of ${allowed.join(', ')}; got "${value}"`);
}
