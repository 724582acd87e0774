import { guestWorkspace } from './workspace-containers.js';

/**
 * The script every command runs under (argv: nonce, cwd, stdin, then the environment as
 * NAME=VALUE and the program's argv). It refuses a cwd that is missing or leads out of the
 * workspace before anything starts, gives the program exactly the asked-for environment (`env -i`:
 * the exec itself inherits the image's), and, when the program ends, kills every process the
 * user has in the container (kill -1 spares the caller and PID 1), so background jobs end with
 * the command and none can outlive it by leaving the process group. Its exit status ends stderr
 * as well (exit-status-trailer.ts), for a daemon that removed the session before it was inspected:
 * on every way out, the refusals included (a refused cwd without it was taken for a run that ended
 * well when the session was gone first, under load).
 * Stdin is a file it opens and removes first thing (see engine-exec.ts), or `-`: the exec's own,
 * attached (a background process).
 */
const commandWrapper = `nonce=$1; cwd=$2; input=$3; shift 3
finish() { printf 'skillbox-exit-%s:%d' "$nonce" "$1" >&2; exit "$1"; }
if ! cd -P -- "$cwd" 2>/dev/null; then echo "skillbox-cwd-refused-$nonce" >&2; finish 125; fi
case "$(pwd -P)/" in ${guestWorkspace}/*) ;; *) echo "skillbox-cwd-refused-$nonce" >&2; finish 125;; esac
if [ "$input" != - ]; then
  exec 0<"$input" || finish 126
  [ "$input" = /dev/null ] || rm -f -- "$input"
fi
/usr/bin/env -i -- "$@"; code=$?
kill -KILL -1 2>/dev/null
finish $code`;

/** One command as the wrapper takes it. */
export interface WrappedCommand {
  nonce: string;
  /** The cwd as the container sees it. */
  cwd: string;
  /** A file in the container to read stdin from, `/dev/null`, or `-` for the exec's attached stdin. */
  input: string;
  env: Record<string, string>;
  program: string[];
}

/** The exec's argv: the wrapper, itself started with no environment (the exec's would show in its /proc/PID/environ). */
export function wrapperArgv(command: WrappedCommand): string[] {
  return [
    '/usr/bin/env',
    '-i',
    '/bin/sh',
    '-c',
    commandWrapper,
    'skillbox-run',
    command.nonce,
    command.cwd,
    command.input,
    ...Object.entries(command.env).map(([name, value]) => `${name}=${value}`),
    ...command.program,
  ];
}

/** The marker the wrapper prints before its exit status. */
export const exitMarker = (nonce: string): string => `skillbox-exit-${nonce}:`;

/** Whether the wrapper refused the cwd (it exits 125 with this line on stderr). */
export const cwdRefused = (exitCode: number, stderr: string, nonce: string): boolean =>
  exitCode === 125 && stderr.includes(`skillbox-cwd-refused-${nonce}`);
