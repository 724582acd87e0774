/**
 * Every `code` a {@link SkillboxError} can carry, one per kind of failure. The list is the contract
 * callers branch on (`isSkillboxError(error, 'SESSION_CONFLICT')`); a new error class adds its code
 * here, and the compiler refuses a code that is not listed.
 */
export const skillboxErrorCodes = [
  // options of any factory or constructor (SkillboxConfigError)
  'CONFIG_INVALID',
  // format
  'SKILL_PARSE_ERROR',
  // repository
  'SKILL_NOT_FOUND',
  'SKILL_PATH_REFUSED',
  'SKILL_FILE_NOT_FOUND',
  'SKILL_FILE_UNREADABLE',
  'SKILL_ROOT_UNUSABLE',
  'INVALID_SKILL_DEFINITION',
  'STRICT_REPOSITORY_FAILED',
  'URL_ROOT_FAILED',
  'ARCHIVE_REFUSED',
  'SKILLS_LOCK_INVALID',
  'LOCKED_SKILL_CHANGED',
  // disclosure and tools
  'SKILL_LOAD_REQUEST_INVALID',
  'SKILL_UNAVAILABLE',
  'SKILL_TOOL_ERROR',
  // runtimes and workspaces
  'RUNTIME_COMMAND_INVALID',
  'SANDBOX_UNAVAILABLE',
  'WORKSPACE_PATH_REFUSED',
  'WORKSPACE_INPUT_ERROR',
  'WORKSPACE_BASE_UNSAFE',
  'SKILL_STAGING_FAILED',
  'RUN_ENV_REFUSED',
  'COMMAND_REFUSED',
  'ARTIFACT_NOT_FOUND',
  'ARTIFACT_NAME_REFUSED',
  'BACKGROUND_PROCESS_REFUSED',
  'WORKSPACE_MANAGER_CLOSED',
  // sessions
  'SESSION_CONFLICT',
  'SESSION_NOT_FOUND',
  'SESSION_EXISTS',
  'SESSION_INPUT_INVALID',
  'SESSION_STORE_SCHEMA',
  'SESSION_STORE_CLOSED',
  'SESSION_STORE_UNAVAILABLE',
  'TURN_FEED_CURSOR_UNKNOWN',
  'TURN_FEED_ENDED',
  // integrations
  'SKILL_CALL_CONTEXT_MISSING',
  'SKILL_AGENT_TURN_ABORTED',
  // openai-agents
  'AGENTS_RUN_NOT_BOUND',
  // hub
  'SKILL_SOURCE_FAILED',
  // skill upload to providers
  'SKILL_UPLOAD_REFUSED',
  'SKILL_UPLOAD_FAILED',
  'SKILL_INSTALL_FAILED',
  'MCP_SKILL_OVER_LIMITS',
  'MCP_SKILL_VERIFICATION_FAILED',
  'MCP_SKILL_SERVER_FAILED',
  // sandbox workers
  'WORKER_BUSY',
  'WORKER_MESSAGE_TOO_LARGE',
  'WORKER_UNAUTHENTICATED',
  'WORKER_UNREACHABLE',
  // worker custody: workspace leases and snapshots
  'WORKSPACE_HELD',
  'WORKSPACE_LEASE_LOST',
  'WORKSPACE_SNAPSHOT_CONFLICT',
  'WORKSPACE_SNAPSHOT_FAILED',
  'WORKSPACE_SNAPSHOT_NOT_FOUND',
  // container runtime
  'CONTAINER_ENGINE_FAILED',
  'CONTAINER_FILES_FAILED',
] as const;

/** One of {@link skillboxErrorCodes}: the stable name of a kind of failure. */
export type SkillboxErrorCode = (typeof skillboxErrorCodes)[number];

// A registry symbol rather than `instanceof`: two copies of skillbox in one process (a dependency
// pinning another version, a bundled and an installed copy) have two SkillboxError classes, and an
// error from one is not an instance of the other. Symbol.for gives both copies the same key.
const skillboxErrorBrand = Symbol.for('skillbox.error');

/**
 * Every error skillbox throws on purpose is a SkillboxError with a stable `code`, so callers can
 * branch on the kind without parsing messages. Layers define subclasses next to their code.
 */
export class SkillboxError extends Error {
  /** The kind of failure; stable across versions, unlike the message. */
  readonly code: SkillboxErrorCode;
  // Read by isSkillboxError through the symbol, which the unused-member check cannot see.
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read via Symbol.for in isSkillboxError.
  private readonly [skillboxErrorBrand] = true;

  constructor(code: SkillboxErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * True when `error` is a {@link SkillboxError} (from this or any other installed copy of skillbox),
 * and, when `code` is given, carries that code.
 *
 * ```ts ignore
 * try { await store.appendEvents(key, events, { expectedVersion }); }
 * catch (error) { if (isSkillboxError(error, 'SESSION_CONFLICT')) retry(); else throw error; }
 * ```
 */
export function isSkillboxError<Code extends SkillboxErrorCode>(
  error: unknown,
  code?: Code,
): error is SkillboxError & { readonly code: Code } {
  if (typeof error !== 'object' || error === null) return false;
  if ((error as { [skillboxErrorBrand]?: unknown })[skillboxErrorBrand] !== true) return false;
  return code === undefined || (error as { code?: unknown }).code === code;
}
