export { PostgresSessionStore, openPostgresSessionStore, postgresSchemaVersion } from './postgres-session-store.js';
export type { PostgresSessionStoreOptions } from './postgres-session-store.js';
