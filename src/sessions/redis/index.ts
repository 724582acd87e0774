export { RedisSessionStore, openRedisSessionStore, redisSchemaVersion } from './redis-session-store.js';
export type { RedisSessionStoreOptions } from './redis-session-store.js';
