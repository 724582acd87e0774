export type * from './session-store.js';
export {
  SessionConflictError,
  SessionExistsError,
  SessionInputError,
  SessionNotFoundError,
  SessionStoreClosedError,
  SessionStoreOptionsError,
  SessionStoreSchemaError,
  SessionStoreUnavailableError,
} from './session-errors.js';
export { MemorySessionStore, createMemorySessionStore } from './memory-session-store.js';
export { clearTemporaryState, temporaryStatePrefix } from './clear-temporary-state.js';
export type { ClearTemporaryStateOptions, ClearTemporaryStateResult } from './clear-temporary-state.js';
