/**
 * The first program inside the sandbox, before the command: bash, started so that nothing in the
 * command's environment can run code in it (`-p`: no BASH_ENV, no functions, SHELLOPTS and
 * BASHOPTS ignored; `--norc --noprofile`: no startup files). It
 *
 * 1. closes every file descriptor above stderr. The host process may hold descriptors without
 *    close-on-exec (inherited from whatever started it, or opened by a native addon); Node hands
 *    them to its children and bubblewrap to the sandbox, where they would reach host files no
 *    mount shows. Closing them inside, after bubblewrap took its own (arguments, filter, control
 *    pipes), catches all of them whatever their number.
 * 2. sets the rlimits (`ulimit` sets soft and hard: the command cannot raise them again). One that
 *    cannot be set is already lower in the hard limit it inherited, which binds as well.
 * 3. execs `env`, which puts back the variables bash itself changes (PWD, SHLVL, SHELLOPTS,
 *    BASHOPTS) exactly as the caller gave them or removes them, and execs the command.
 */
const CLOSE_INHERITED = 'for fd in /proc/self/fd/*; do fd=${fd##*/}; ((fd > 2)) && exec {fd}>&-; done';

/** Variables bash sets or rewrites for the programs it runs. */
const SHELL_OWNED_VARIABLES = ['PWD', 'SHLVL', 'SHELLOPTS', 'BASHOPTS'];

export interface PreludeLimits {
  maxProcesses: number | null;
  maxMemoryBytes: number | null;
  maxFileSizeBytes: number | null;
}

/** The script, fixed per limits: bash's `ulimit` counts memory and file size in KiB (rounded down here). */
export function preludeScript(limits: PreludeLimits): string {
  const settings = [
    ...(limits.maxProcesses === null ? [] : [`ulimit -u ${limits.maxProcesses}`]),
    ...(limits.maxMemoryBytes === null ? [] : [`ulimit -v ${Math.floor(limits.maxMemoryBytes / 1024)}`]),
    ...(limits.maxFileSizeBytes === null ? [] : [`ulimit -f ${Math.floor(limits.maxFileSizeBytes / 1024)}`]),
  ].map((setting) => `${setting} 2>/dev/null`);
  return [CLOSE_INHERITED, ...settings, 'exec "$@"'].join('; ');
}

/** `bash … -c <script> prelude env <fix-ups> -- ` before the program. */
export function preludeArguments(bashPath: string, envPath: string, script: string, env: Record<string, string>): string[] {
  const fixUps = SHELL_OWNED_VARIABLES.flatMap((name) => (env[name] === undefined ? ['-u', name] : [`${name}=${env[name]}`]));
  return [bashPath, '--noprofile', '--norc', '-p', '-c', script, 'skillbox-prelude', envPath, ...fixUps, '--'];
}
