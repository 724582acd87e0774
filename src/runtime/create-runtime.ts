import { validateOptions } from '../config/validate-options.js';
import { LocalRuntime } from './local-runtime.js';
import { createRuntimeOptionsSchema } from './runtime-options-schema.js';
import type { WorkspaceRuntime } from './runtime-types.js';
import { SandboxRuntime, type SandboxRuntimeOptions } from './sandbox-runtime.js';
import { detectSandboxSupport } from './sandbox-support.js';

/** A runtime `createRuntime` can build: `auto` (the sandbox where bubblewrap works, else local with a warning), `sandbox` or `local`. */
export type RuntimeKind = 'auto' | 'sandbox' | 'local';

/** Options of `createRuntime`: the kind (`auto`, `sandbox`, `local`) plus the sandbox limits. */
export interface CreateRuntimeOptions extends SandboxRuntimeOptions {
  /** `auto` (default): the sandbox where bubblewrap works, else local with a warning on every result. */
  kind?: RuntimeKind;
}

export const RUNTIME_KINDS: readonly RuntimeKind[] = ['auto', 'sandbox', 'local'];

/**
 * The runtime for a kind. `sandbox` throws SandboxUnavailableError here, at construction, when
 * bubblewrap cannot work; `auto` falls back to the local runtime instead and puts the reason and
 * the fix in a warning on every run result, so nobody mistakes an unconfined run for a safe one.
 */
export function createRuntime(options: CreateRuntimeOptions = {}): WorkspaceRuntime {
  validateOptions('createRuntime', createRuntimeOptionsSchema, options);
  const { kind = 'auto', ...rest } = options;
  const localOptions = rest.shell === undefined ? {} : { shell: rest.shell };
  if (kind === 'local') return new LocalRuntime(localOptions);
  if (kind === 'sandbox') return new SandboxRuntime(rest);
  const support = detectSandboxSupport(
    rest.bubblewrapPath === undefined ? {} : { bubblewrapPath: rest.bubblewrapPath },
  );
  if (support.available) return new SandboxRuntime(rest);
  return new LocalRuntime({
    ...localOptions,
    isolationWarning:
      `NOT ISOLATED: the sandbox is unavailable (${support.reason}), so this command ran directly on the host ` +
      'with access to everything this user can read and change. Install bubblewrap (apt-get install bubblewrap) to isolate skill scripts, ' +
      'or choose runtime "local" explicitly to accept this.',
  });
}
