// The runtime kinds by name alone, apart from create-runtime.ts: a command that only checks a
// `--runtime` flag (`skillbox list`) must not load the runtimes and their option schemas (zod) to do so.

/**
 * A runtime `createRuntime` can build: `auto` (the sandbox where bubblewrap works; elsewhere an error,
 * or the host with `hostFallback`), `sandbox`, `local` or `container` (Docker or Podman, with `container` options).
 */
export type RuntimeKind = 'auto' | 'sandbox' | 'local' | 'container';

export const RUNTIME_KINDS: readonly RuntimeKind[] = ['auto', 'sandbox', 'local', 'container'];
