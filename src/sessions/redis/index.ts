export type { RedisSessionStoreOptions } from './redis-session-store.js';
export { openRedisSessionStore, RedisSessionStore, redisSchemaVersion } from './redis-session-store.js';
export { openRedisTurnEventFeed, type RedisTurnEventFeedOptions } from './redis-turn-event-feed.js';
