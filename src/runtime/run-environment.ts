import { RunEnvironmentError } from './errors.js';
import { SYSTEM_PATH } from './find-executable.js';

const validName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Variables that make a loader, a shell or an interpreter run code of their choosing before (or
 * instead of) what the command asks, whatever the command is. With a command allow list these
 * would be a way around it; without one they add nothing a skill needs, so they are refused in
 * every mode.
 */
const refusedNames = new Set([
  // loader and C library
  'GLIBC_TUNABLES',
  'GCONV_PATH',
  'NLSPATH',
  'HOSTALIASES',
  'LOCALDOMAIN',
  'RESOLV_HOST_CONF',
  'OPENSSL_CONF',
  // shells: startup files and settings that run code or change how words split
  'BASH_ENV',
  'ENV',
  'ZDOTDIR',
  'PROMPT_COMMAND',
  'SHELLOPTS',
  'BASHOPTS',
  'IFS',
  'CDPATH',
  'GLOBIGNORE',
  'PS4',
  // interpreters: startup code, options and library folders read before the script
  'PYTHONSTARTUP',
  'PYTHONHOME',
  'PYTHONINSPECT',
  'PERL5OPT',
  'PERL5DB',
  'PERLLIB',
  'PERL5LIB',
  'RUBYOPT',
  'RUBYLIB',
  'NODE_OPTIONS',
  'NODE_PATH',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
  'LUA_INIT',
  'R_PROFILE',
  'R_PROFILE_USER',
  // git: helpers it runs and configuration given through the environment (core.pager, aliases ...)
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_EXEC_PATH',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'GIT_PROXY_COMMAND',
  'GIT_EXTERNAL_DIFF',
]);
const refusedPrefixes = ['LD_', 'DYLD_', 'BASH_FUNC_', 'MALLOC_', 'GIT_CONFIG', 'LUA_INIT_'];

/**
 * Refused only when a command allow or deny list is set. Without lists the command is a bash
 * string that can run anything, and these have everyday uses (`PYTHONPATH=scripts python3 -m x`);
 * with lists the program is fixed by the policy, and these would choose which code it runs: PATH
 * picks the program itself, the others a library folder or a helper program.
 */
const restrictedRefusedNames = new Set([
  'PATH',
  'PYTHONPATH',
  'PYTHONUSERBASE',
  'PYTHONPLATLIBDIR',
  'PYTHONWARNINGS',
  'PYTHONBREAKPOINT',
  'CLASSPATH',
  'GEM_PATH',
  'GEM_HOME',
  'LUA_PATH',
  'LUA_CPATH',
  'PAGER',
  'GIT_PAGER',
  'EDITOR',
  'VISUAL',
  'GIT_EDITOR',
  'BROWSER',
]);

export interface VariableCheckOptions {
  /** A command allow/deny list is set: PATH, PYTHONPATH and the like are refused too. */
  restricted?: boolean;
}

/** Throws RunEnvironmentError for a name that is malformed or on the refused list, or a value with NUL. */
export function assertAllowedVariable(name: string, value: unknown, options: VariableCheckOptions = {}): void {
  if (!validName.test(name)) throw new RunEnvironmentError(name, 'names must match [A-Za-z_][A-Za-z0-9_]*');
  const upper = name.toUpperCase();
  if (refusedNames.has(upper) || refusedPrefixes.some((prefix) => upper.startsWith(prefix))) {
    throw new RunEnvironmentError(
      name,
      'it changes how programs load or start, so it cannot be set for a skill command',
    );
  }
  if (options.restricted === true && restrictedRefusedNames.has(upper)) {
    throw new RunEnvironmentError(
      name,
      upper === 'PATH'
        ? `it would change which program runs, and command restrictions are enabled (PATH is fixed to ${SYSTEM_PATH})`
        : 'it would change which code an allowed program runs, and command restrictions are enabled',
    );
  }
  if (typeof value !== 'string') throw new RunEnvironmentError(name, 'the value must be a string');
  if (value.includes('\0')) throw new RunEnvironmentError(name, 'the value contains a NUL byte');
}

export interface RunEnvironmentInput {
  /** Guest paths of the workspace folders. */
  folders: { workspace: string; skills: string; work: string; output: string; run: string };
  /** Home folder the process sees (inside the workspace, so tools that write caches can). */
  home: string;
  skill?: { name: string; guestPath: string; hasVirtualEnv: boolean };
  /** Host variables the caller allows, already read from the host (PATH among them replaces the system PATH). */
  allowedHost: Record<string, string>;
  /** Variables from the tool call or the command line; checked here. */
  caller: Record<string, string>;
  /**
   * A command allow/deny list is set: PATH is the system folders alone (no skill `bin/`, no host or
   * caller PATH), because anything in the workspace may have been written by the model.
   */
  restricted?: boolean;
}

/**
 * The whole environment of a command: nothing of the host passes unless the caller allowed it by
 * name. Order of precedence, lowest first: defaults, allowed host variables, workspace variables,
 * caller variables (so a call may point OUTPUT_DIR elsewhere). The skill's `.venv/bin` and
 * `bin/` lead PATH as absolute paths, so a `cd` in the command does not change what runs.
 */
export function buildRunEnvironment(input: RunEnvironmentInput): Record<string, string> {
  const restricted = input.restricted === true;
  for (const [name, value] of Object.entries(input.caller)) assertAllowedVariable(name, value, { restricted });
  const basePath = restricted ? SYSTEM_PATH : (input.allowedHost.PATH ?? SYSTEM_PATH);
  const skillPath =
    input.skill === undefined || restricted
      ? []
      : [...(input.skill.hasVirtualEnv ? [`${input.skill.guestPath}/.venv/bin`] : []), `${input.skill.guestPath}/bin`];
  const environment: Record<string, string> = {
    LANG: 'C.UTF-8',
    HOME: input.home,
    ...input.allowedHost,
    PATH: [...skillPath, basePath].join(':'),
    WORKSPACE_DIR: input.folders.workspace,
    SKILLS_DIR: input.folders.skills,
    WORK_DIR: input.folders.work,
    OUTPUT_DIR: input.folders.output,
    RUN_DIR: input.folders.run,
  };
  if (input.skill !== undefined) {
    environment.SKILL_NAME = input.skill.name;
    if (input.skill.hasVirtualEnv) environment.VIRTUAL_ENV = `${input.skill.guestPath}/.venv`;
  }
  return { ...environment, ...input.caller };
}
