export { SqliteSessionStore, openSqliteSessionStore, sqliteSchemaVersion } from './sqlite-session-store.js';
export type { SqliteSessionStoreOptions } from './sqlite-session-store.js';
