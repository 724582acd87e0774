export type { PostgresSessionStoreOptions } from './postgres-session-store.js';
export { openPostgresSessionStore, PostgresSessionStore, postgresSchemaVersion } from './postgres-session-store.js';
