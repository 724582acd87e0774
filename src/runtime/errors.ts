import { SkillboxError } from '../errors.js';

/**
 * A RuntimeCommand that cannot run as given (bad field, cwd missing or outside the workspace), code
 * `RUNTIME_COMMAND_INVALID`. Thrown by `validateRuntimeCommand`, and by a runtime for what it checks
 * itself (the cwd when the command starts, a field it cannot honour), before anything starts.
 */
export class RuntimeCommandError extends SkillboxError {
  /** The RuntimeCommand field at fault: `cwd`, `argv`, `timeoutMs`, ... */
  readonly field: string;

  constructor(field: string, why: string) {
    super('RUNTIME_COMMAND_INVALID', `invalid runtime command field "${field}": ${why}`);
    this.field = field;
  }
}

/** The bubblewrap sandbox was asked for explicitly but cannot work on this machine. */
export class SandboxUnavailableError extends SkillboxError {
  readonly reason: string;

  constructor(reason: string) {
    super(
      'SANDBOX_UNAVAILABLE',
      `the sandbox runtime cannot run here: ${reason}. Install bubblewrap (for example \`apt-get install bubblewrap\`) ` +
        `on a Linux host that allows user namespaces, or choose runtime "local" (createRuntime({ kind: 'local' })) ` +
        'to run skill scripts on the host without isolation, knowingly',
    );
    this.reason = reason;
  }
}

/** A caller environment entry that is refused (bad name, loader-injection key, NUL byte). */
export class RunEnvironmentError extends SkillboxError {
  readonly variable: string;

  constructor(variable: string, why: string) {
    super('RUN_ENV_REFUSED', `refused environment variable "${variable}": ${why}`);
    this.variable = variable;
  }
}

/** A command refused by the command allow/deny lists or not splittable without a shell. */
export class CommandPolicyError extends SkillboxError {
  constructor(message: string) {
    super('COMMAND_REFUSED', message);
  }
}

/**
 * A workspace path (cwd, input destination, output pattern) that would leave the workspace, code
 * `WORKSPACE_PATH_REFUSED`; a runtime's `files()` throws it for a path that leads out.
 */
export class WorkspacePathError extends SkillboxError {
  readonly path: string;

  constructor(path: string, why: string) {
    super('WORKSPACE_PATH_REFUSED', `refused workspace path "${path}": ${why}`);
    this.path = path;
  }
}
