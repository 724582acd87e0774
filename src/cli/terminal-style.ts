import { inspect } from 'node:util';
import type { CliIo } from './command.js';
import { terminalSafe } from './terminal-safe-text.js';

export type Stream = 'stdout' | 'stderr';

/**
 * Whether text written to a stream may carry colour codes. FORCE_COLOR (any value but "0") turns
 * colour on and NO_COLOR (any non-empty value, see no-color.org) off, FORCE_COLOR winning as in
 * Node's own rule; otherwise only a terminal that is not "dumb" gets colour, so pipes, files and
 * CI logs get plain text.
 */
export function colorsEnabled(io: CliIo, stream: Stream): boolean {
  const force = io.env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  const terminal = stream === 'stdout' ? io.stdoutIsTerminal : io.stderrIsTerminal;
  return terminal === true && io.env.TERM !== 'dumb';
}

type Style = 'red' | 'yellow' | 'green' | 'bold' | 'dim';

/** Wraps text in a style when the stream takes colour; plain text otherwise. */
export function paint(io: CliIo, stream: Stream, style: Style, text: string): string {
  if (!colorsEnabled(io, stream)) return text;
  // util.styleText would decide again from process.stdout (and differently across Node 20 and 22),
  // not from the stream this text goes to; inspect.colors holds the same codes.
  const [open, close] = inspect.colors[style] ?? [0, 0];
  return `\u001b[${open}m${text}\u001b[${close}m`;
}

/** "warning: TEXT" for standard error, the word in yellow on a colour terminal. */
export function warningLine(io: CliIo, text: string): string {
  return `${paint(io, 'stderr', 'yellow', 'warning:')} ${terminalSafe(text)}\n`;
}
