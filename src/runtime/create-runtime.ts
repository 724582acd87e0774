import { SkillboxConfigError } from '../config/config-error.js';
import { validateOptions } from '../config/validate-options.js';
import { type ContainerRuntimeOptions, createContainerRuntime } from './container/container-runtime.js';
import { SandboxUnavailableError } from './errors.js';
import { LocalRuntime } from './local-runtime.js';
import { RUNTIME_KINDS, type RuntimeKind } from './runtime-kinds.js';
import { createRuntimeOptionsSchema } from './runtime-options-schema.js';
import type { WorkspaceRuntime } from './runtime-types.js';
import { SandboxRuntime, type SandboxRuntimeOptions } from './sandbox-runtime.js';
import { detectSandboxSupport } from './sandbox-support.js';

export { RUNTIME_KINDS, type RuntimeKind };

/** Options of `createRuntime`: the kind (`auto`, `sandbox`, `local`) plus the sandbox limits. */
export interface CreateRuntimeOptions extends SandboxRuntimeOptions {
  /**
   * `auto` (default): the sandbox where bubblewrap works. Where it does not, `createRuntime` throws
   * SandboxUnavailableError, unless `hostFallback` is set.
   */
  kind?: RuntimeKind;
  /**
   * With `auto`: where the sandbox cannot run, run commands on the host instead, with a warning on
   * every run result (default false: fail closed). For tools a person watches, like a CLI that
   * also prints the warning; a library that serves a model should choose `kind: 'local'` knowingly.
   */
  hostFallback?: boolean;
  /** With `container` (required there, refused with the others): the image, the daemon and the caps. */
  container?: ContainerRuntimeOptions;
}

/**
 * The runtime for a kind. `sandbox` and `auto` throw SandboxUnavailableError here, at construction,
 * when bubblewrap cannot work (no Linux, no bubblewrap, no user namespaces): a developer learns it
 * at start-up, not from a model's tool result. Only `auto` with `hostFallback` falls back to the
 * local runtime, and then puts the reason and the fix in a warning on every run result.
 */
export function createRuntime(options: CreateRuntimeOptions = {}): WorkspaceRuntime {
  validateOptions('createRuntime', createRuntimeOptionsSchema, options);
  const { kind = 'auto', hostFallback = false, container, ...rest } = options;
  if (kind === 'container') {
    if (container === undefined)
      throw new SkillboxConfigError('createRuntime', [
        { option: 'container', problem: 'is required with kind "container" (at least { image })' },
      ]);
    return createContainerRuntime(container);
  }
  if (container !== undefined)
    throw new SkillboxConfigError('createRuntime', [
      { option: 'container', problem: `applies only to kind "container", not "${kind}"` },
    ]);
  const localOptions = rest.shell === undefined ? {} : { shell: rest.shell };
  if (kind === 'local') return new LocalRuntime(localOptions);
  if (kind === 'sandbox') return new SandboxRuntime(rest);
  const support = detectSandboxSupport(
    rest.bubblewrapPath === undefined ? {} : { bubblewrapPath: rest.bubblewrapPath },
  );
  if (support.available) return new SandboxRuntime(rest);
  if (!hostFallback) throw new SandboxUnavailableError(support.reason);
  return new LocalRuntime({
    ...localOptions,
    isolationWarning:
      `NOT ISOLATED: the sandbox is unavailable (${support.reason}), so this command ran directly on the host ` +
      'with access to everything this user can read and change. Install bubblewrap (apt-get install bubblewrap) to isolate skill scripts, ' +
      'or choose runtime "local" explicitly to accept this.',
  });
}
