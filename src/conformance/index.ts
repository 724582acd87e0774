// `skillbox/testing`: the suites that check a third-party WorkspaceRuntime or SessionStore behaves
// like the built-in ones. They import vitest (an optional peer dependency), so they live on their
// own subpath and never load from the root entry.
export { describeRuntimeConformance } from '../workspace/testing/runtime-conformance.js';
export { describeSessionStoreConformance, type SessionStoreBackend, type SessionStoreConformanceOptions } from '../sessions/testing/session-store-conformance.js';
