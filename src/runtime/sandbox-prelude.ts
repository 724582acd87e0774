/**
 * The first program inside the sandbox, which then execs the command: bash, started so that
 * nothing in the command's environment can run code in it (`-p`: no BASH_ENV, no functions,
 * SHELLOPTS and BASHOPTS ignored; `--norc --noprofile`: no startup files). It
 *
 * 1. closes every file descriptor above stderr. The host process may hold descriptors without
 *    close-on-exec (inherited from whatever started it, or opened by a native addon); Node hands
 *    them to its children and bubblewrap to the sandbox, where they would reach host files no
 *    mount shows. Closing them inside, after bubblewrap took its own (options, filter, control
 *    pipes), catches all of them whatever their number.
 * 2. sets the rlimits (`ulimit` sets soft and hard: the command cannot raise them again). One that
 *    cannot be set is already lower in the hard limit it inherited, which binds as well.
 * 3. puts back PWD (bubblewrap sets it to the directory it starts in) as the caller gave it, or
 *    removes it, does the same with SHLVL (which bash sets for itself), and execs the command in a
 *    forked subshell. This replaces `prlimit` and `env`, two execs that made up most of a run's
 *    cost over bare bubblewrap (a fork of the already loaded bash costs far less than an exec).
 * 4. stays as the sandbox's pid 1 (bubblewrap runs with --as-pid-1) and waits for the command.
 *    bubblewrap's own pid-1 reaper would report the command's exit while its parent exits at
 *    once, leaving the reaper an orphan zombie for the host's init to collect, which in
 *    containers takes up to seconds; until then it stays charged to the run's pids cgroup, which
 *    could then be neither reused nor removed. With the prelude as pid 1, bubblewrap reaps it and
 *    the kernel reaps everything else in the pid namespace as it exits: the cgroup is empty and
 *    uncharged when the run returns. The command itself is not pid 1, so signals act on it as
 *    anywhere (pid 1 ignores those it has no handler for); `<&0` keeps its stdin, which a
 *    background job would otherwise get as /dev/null. A signal that ends it shows as exit code
 *    128 + n, as bubblewrap's reaper reported it before.
 */
// biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansion, not a template.
const CLOSE_INHERITED = 'for fd in /proc/self/fd/*; do fd=${fd##*/}; ((fd > 2)) && exec {fd}>&-; done';
const RESTORE_PWD = 'if [ "$1" = set ]; then export PWD="$2"; else unset PWD; fi';
const RESTORE_SHLVL = 'if [ "$3" = set ]; then export SHLVL="$4"; else unset SHLVL; fi';

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
  return [CLOSE_INHERITED, ...settings, RESTORE_PWD, RESTORE_SHLVL, 'shift 4', '(exec -- "$@") <&0 & wait $!'].join(
    '; ',
  );
}

/** `bash … -c <script> skillbox-prelude <PWD> <SHLVL>` before the program. */
export function preludeArguments(bashPath: string, script: string, env: Record<string, string>): string[] {
  const given = (name: string) => (env[name] === undefined ? ['unset', ''] : ['set', env[name] as string]);
  return [
    bashPath,
    '--noprofile',
    '--norc',
    '-p',
    '-c',
    script,
    'skillbox-prelude',
    ...given('PWD'),
    ...given('SHLVL'),
  ];
}
