export { availableSqliteDriver, type SqliteDriverName } from './sqlite-connection.js';
export type { SqliteSessionStoreOptions } from './sqlite-session-store.js';
export { openSqliteSessionStore, SqliteSessionStore, sqliteSchemaVersion } from './sqlite-session-store.js';
