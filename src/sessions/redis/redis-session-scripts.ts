/**
 * Lua scripts of the Redis session store. Redis runs a script without interleaving other commands,
 * so each one is an atomic step: the version check and the append cannot be split by another writer.
 *
 * Keys of one session: KEYS[1] meta hash (version, createdAt, updatedAt), KEYS[2] events list (JSON
 * per event, index = version - 1), KEYS[3] state hash, KEYS[4] the user's index (sorted set of
 * session ids scored by updatedAt). Every key of a user shares one hash tag, so a script's keys sit
 * in one cluster slot.
 */

/** ARGV: now, sessionId, then state key/value pairs. Returns 1, or 0 when the session exists. */
export const createSessionScript = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'version', 0, 'createdAt', ARGV[1], 'updatedAt', ARGV[1])
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
redis.call('ZADD', KEYS[4], ARGV[1], ARGV[2])
return 1
`;

/**
 * ARGV: expectedVersion, now, sessionId, eventCount, eventCount event JSONs, then state changes as
 * triples (s|d, key, value). Returns {version}, {-1} for an unknown session, {-2, actual} on conflict.
 */
export const appendEventsScript = `
local current = redis.call('HGET', KEYS[1], 'version')
if not current then return {-1} end
current = tonumber(current)
if current ~= tonumber(ARGV[1]) then return {-2, current} end
local count = tonumber(ARGV[4])
for i = 5, 4 + count do redis.call('RPUSH', KEYS[2], ARGV[i]) end
for i = 5 + count, #ARGV, 3 do
  if ARGV[i] == 's' then redis.call('HSET', KEYS[3], ARGV[i + 1], ARGV[i + 2]) else redis.call('HDEL', KEYS[3], ARGV[i + 1]) end
end
local version = current + count
redis.call('HSET', KEYS[1], 'version', version, 'updatedAt', ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[3])
return {version}
`;

/** ARGV: sessionId. Returns 1 when deleted, 0 when there was nothing. */
export const deleteSessionScript = `
local existed = redis.call('DEL', KEYS[1])
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('ZREM', KEYS[4], ARGV[1])
return existed
`;
