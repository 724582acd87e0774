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
 *
 * Where the compiled prelude exists (native/sandbox-prelude.c, found and checked by
 * sandbox-prelude-program.ts) it does all of this in one small static program: no shell to load,
 * no descriptor it cannot close, no environment name it drops. The shells below are the fall-back.
 *
 * Where the host has dash (Debian's /bin/sh), a dash script does the same work first and bash is
 * started only when it must be: dash is a tenth of bash's size and loads and forks far faster
 * (docs/runtimes.md, "Where a sandboxed run's time goes"). Two things dash cannot do decide the
 * choice, both checked where no race can reach them:
 *
 * - dash names only descriptors 0 to 9 in a redirection, so it cannot close an inherited one
 *   numbered 10 or more. It closes 3 to 9, then lists /proc/self/fd (a glob, no extra process);
 *   an entry above 9 means something was inherited that it cannot close, and it execs the bash
 *   script in its place (same pid, same arguments), which closes everything. The check runs
 *   inside the sandbox's own process, whose descriptor table was fixed when the host forked
 *   bubblewrap: a descriptor another host thread opens later (a native addon forgetting
 *   close-on-exec) cannot appear in it. A check in Node before the spawn could not promise that
 *   (a thread may open one between the check and the fork), which is why it is not done there.
 * - dash drops environment entries whose names are not shell identifiers (bash passes them on),
 *   so a command whose environment has such a name gets the bash prelude, chosen in Node.
 *
 * The dash script runs the command as a foreground subshell, not `& wait` as bash does: dash
 * makes a background job ignore SIGINT and SIGQUIT (which the command would inherit) and gives it
 * /dev/null as stdin whatever the redirection. A foreground subshell keeps both as they came, and
 * `exit "$?"` after it stops dash from exec'ing the last command in place of forking (which would
 * make the command pid 1). dash sets PWD at start and leaves SHLVL alone, so only PWD is put back.
 * dash reads no startup file and no ENV when not interactive, and imports no functions.
 */
import { SANDBOX_PRELUDE_PROGRAM_PATH } from './sandbox-prelude-program.js';

// The loop variable is local to a function: an environment variable of the same name would
// otherwise be changed in the command's environment.
const CLOSE_INHERITED =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template.
  'close_inherited() { local fd; for fd in /proc/self/fd/*; do fd=${fd##*/}; ((fd > 2)) && exec {fd}>&-; done; }; close_inherited';
const LOW_DESCRIPTORS_ONLY =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template.
  'only_low_descriptors() { local fd; for fd in /proc/self/fd/*; do [ "${fd##*/}" -le 9 ] || return 1; done; }';
const RESTORE_PWD = 'if [ "$1" = set ]; then export PWD="$2"; else unset PWD; fi';
const RESTORE_SHLVL = 'if [ "$3" = set ]; then export SHLVL="$4"; else unset SHLVL; fi';

export interface PreludeLimits {
  maxProcesses: number | null;
  maxMemoryBytes: number | null;
  maxFileSizeBytes: number | null;
}

/**
 * What starts the sandbox: the compiled prelude where it exists (sandbox-prelude-program.ts), else
 * bash alone or dash falling back to bash, each with its fixed script.
 */
export interface Prelude {
  bashPath: string;
  bashScript: string;
  dash?: { path: string; script: string };
  /** The compiled prelude: its host path (bound read-only into the sandbox) and its limit arguments. */
  program?: { hostPath: string; limitArguments: string[] };
}

/**
 * The scripts, fixed per limits. Both set the same limits: bash's `ulimit` counts memory and file
 * size in KiB (rounded down here), dash's memory in KiB and file size in 512-byte blocks (given
 * as twice the KiB, so the limit is the same whichever shell sets it).
 */
export function createPrelude(
  limits: PreludeLimits,
  bashPath: string,
  dashPath: string | undefined,
  programPath?: string,
): Prelude {
  const kib = (bytes: number) => Math.floor(bytes / 1024);
  // The same whole KiB the shells' `ulimit` sets, so the limit does not depend on which prelude runs.
  const limitArgument = (value: number | null, toBytes: (value: number) => number) =>
    value === null ? '-' : String(toBytes(value));
  const program =
    programPath === undefined
      ? {}
      : {
          program: {
            hostPath: programPath,
            limitArguments: [
              limitArgument(limits.maxProcesses, (count) => count),
              limitArgument(limits.maxMemoryBytes, (bytes) => kib(bytes) * 1024),
              limitArgument(limits.maxFileSizeBytes, (bytes) => kib(bytes) * 1024),
            ],
          },
        };
  const settings = (processFlag: string, fileBlocks: (bytes: number) => number) =>
    [
      ...(limits.maxProcesses === null ? [] : [`ulimit -${processFlag} ${limits.maxProcesses}`]),
      ...(limits.maxMemoryBytes === null ? [] : [`ulimit -v ${kib(limits.maxMemoryBytes)}`]),
      ...(limits.maxFileSizeBytes === null ? [] : [`ulimit -f ${fileBlocks(limits.maxFileSizeBytes)}`]),
    ].map((setting) => `${setting} 2>/dev/null`);
  const bashScript = [
    CLOSE_INHERITED,
    ...settings('u', kib),
    RESTORE_PWD,
    RESTORE_SHLVL,
    'shift 4',
    '(exec -- "$@") <&0 & wait $!',
  ].join('; ');
  if (dashPath === undefined) return { bashPath, bashScript, ...program };
  // dash's arguments: bash's path and script (for the fall-back), then bash's four, then the command.
  const dashScript = [
    'exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-',
    LOW_DESCRIPTORS_ONLY,
    'only_low_descriptors || exec "$1" --noprofile --norc -p -c "shift 2; $2" skillbox-prelude "$@"',
    ...settings('p', (bytes) => 2 * kib(bytes)),
    'if [ "$3" = set ]; then export PWD="$4"; else unset PWD; fi',
    'shift 6',
    '(exec "$@")',
    'exit "$?"',
  ].join('; ');
  return { bashPath, bashScript, dash: { path: dashPath, script: dashScript }, ...program };
}

/** Names dash keeps in the environment it passes on; it drops every other entry. */
const SHELL_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The prelude's command line before the program: the compiled prelude's where it exists (it passes
 * every environment entry on and leaves SHLVL alone; `cgroupDescriptors` are the sandbox's
 * descriptors on the run's cgroup.procs files, which it joins first), else dash's when it can keep
 * the whole environment, else bash's.
 */
export function preludeArguments(
  prelude: Prelude,
  env: Record<string, string>,
  cgroupDescriptors: readonly number[] = [],
): string[] {
  const given = (name: string) => (env[name] === undefined ? ['unset', ''] : ['set', env[name] as string]);
  if (prelude.program)
    return [
      SANDBOX_PRELUDE_PROGRAM_PATH,
      cgroupDescriptors.length === 0 ? '-' : cgroupDescriptors.join(','),
      ...prelude.program.limitArguments,
      ...given('PWD'),
    ];
  const state = [...given('PWD'), ...given('SHLVL')];
  if (prelude.dash && Object.keys(env).every((name) => SHELL_IDENTIFIER.test(name))) {
    return [
      prelude.dash.path,
      '-c',
      prelude.dash.script,
      'skillbox-prelude',
      prelude.bashPath,
      prelude.bashScript,
      ...state,
    ];
  }
  return [prelude.bashPath, '--noprofile', '--norc', '-p', '-c', prelude.bashScript, 'skillbox-prelude', ...state];
}
