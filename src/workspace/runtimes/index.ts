export { LocalRuntime, LOCAL_ISOLATION_WARNING, type LocalRuntimeOptions } from './local-runtime.js';
export { SandboxRuntime, SANDBOX_DEFAULT_LIMITS, type SandboxRuntimeOptions } from './sandbox-runtime.js';
export { createRuntime, RUNTIME_KINDS, type CreateRuntimeOptions, type RuntimeKind } from './create-runtime.js';
export { detectSandboxSupport, type SandboxSupport } from './sandbox-support.js';
export { SANDBOX_WORKSPACE_PATH, SANDBOX_ETC_FILES } from './bubblewrap-arguments.js';
export { RuntimeCommandError, RuntimeConfigError, SandboxUnavailableError } from './errors.js';
export { maxRuntimeTimeoutMs } from './validate-command.js';
