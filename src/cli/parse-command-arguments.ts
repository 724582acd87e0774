import { type ParseArgsConfig, parseArgs } from 'node:util';
import { CliUsageError } from './command.js';
import { closestMatch, didYouMean } from './did-you-mean.js';

/** Options every command takes; main answers them before the command parses its own. */
const commonOptions = ['--help', '-h'];

/**
 * node:util parseArgs, with its TypeErrors (unknown option, missing value) turned into
 * CliUsageError so every command prints its usage and exits 2 the same way. An unknown option
 * gets the closest known one as a suggestion.
 */
export function parseCommandArguments<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    if (error instanceof CliUsageError) throw error;
    const message = (error as Error).message;
    const unknown =
      (error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
        ? /'([^']+)'/.exec(message)?.[1]
        : undefined;
    if (unknown !== undefined) {
      const known = [...Object.keys(config.options ?? {}).map((name) => `--${name}`), ...commonOptions];
      throw new CliUsageError(`unknown option ${unknown}.${didYouMean(unknown.split('=')[0] ?? unknown, known)}`);
    }
    throw new CliUsageError(message);
  }
}

/** The value of an option that takes one of a fixed set of words. */
export function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  option: string,
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  const hint = closestMatch(value, allowed);
  throw new CliUsageError(
    `${option} must be one of ${allowed.join(', ')}; got "${value}"${hint === undefined ? '' : `; did you mean "${hint}"?`}`,
  );
}
