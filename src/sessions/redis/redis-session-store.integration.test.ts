import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  removeRedisPrefix as removePrefix,
  uniqueRedisPrefix as uniquePrefix,
} from '../../../test/support/redis-key-prefix.js';
import { redisReachable, redisUrl } from '../../../test/support/services.js';
import { SessionStoreSchemaError, SessionStoreUnavailableError } from '../session-errors.js';
import { describeSessionStoreConformance } from '../testing/session-store-conformance.js';
import { openRedisSessionStore, redisSchemaVersion } from './redis-session-store.js';

// Skipped when the server is down, with one line from the global setup; under CI=true the run fails
// instead, so a broken CI service cannot pass silently (test/support/services.ts).
const url = redisUrl;

describe.runIf(redisReachable)('Redis session store', () => {
  describeSessionStoreConformance(
    'redis',
    async () => {
      const keyPrefix = uniquePrefix();
      return { open: () => openRedisSessionStore({ url, keyPrefix }), destroy: () => removePrefix(keyPrefix) };
    },
    { durable: true },
  );

  describe('RedisSessionStore specifics', () => {
    let keyPrefix: string;
    beforeEach(() => {
      keyPrefix = uniquePrefix();
    });
    afterEach(async () => {
      await removePrefix(keyPrefix);
    });

    it('works on a client the caller owns, leaves it connected on close, and keeps every key under the prefix', async () => {
      const client = new Redis(url);
      try {
        const store = await openRedisSessionStore({ client, keyPrefix });
        await store.createSession({ userId: 'u:1', sessionId: 's/1' }, { state: { a: '1' } });
        await store.appendEvents({ userId: 'u:1', sessionId: 's/1' }, [{ author: 'user', type: 'message' }], {
          expectedVersion: 0,
        });
        await store.close();
        expect(await client.ping()).toBe('PONG');
        const keys = (await client.keys(`${keyPrefix}*`)).sort();
        expect(keys).toEqual(
          [
            `${keyPrefix}schema`,
            `${keyPrefix}{default:u%3A1}:sessions`,
            `${keyPrefix}{default:u%3A1}:session:s%2F1:events`,
            `${keyPrefix}{default:u%3A1}:session:s%2F1:meta`,
            `${keyPrefix}{default:u%3A1}:session:s%2F1:state`,
          ].sort(),
        );
      } finally {
        await client.quit();
      }
    });

    it('reloads its scripts after the server forgets them', async () => {
      const store = await openRedisSessionStore({ url, keyPrefix });
      const admin = new Redis(url);
      try {
        await store.createSession({ userId: 'u', sessionId: 's' });
        await admin.script('FLUSH');
        await store.appendEvents({ userId: 'u', sessionId: 's' }, [{ author: 'user', type: 'message' }], {
          expectedVersion: 0,
        });
        expect((await store.getSession({ userId: 'u', sessionId: 's' }))?.version).toBe(1);
      } finally {
        await store.close();
        await admin.quit();
      }
    });

    it('refuses bad options, naming the option', async () => {
      await expect(openRedisSessionStore({})).rejects.toMatchObject({
        name: 'SkillboxConfigError',
        component: 'openRedisSessionStore',
        option: 'url',
      });
      await expect(openRedisSessionStore({ url: 'http://127.0.0.1:6379' })).rejects.toMatchObject({ option: 'url' });
      await expect(openRedisSessionStore({ url, keyPrefix: 'a{b}' })).rejects.toMatchObject({ option: 'keyPrefix' });
      await expect(openRedisSessionStore({ url, keyPrefix: '' })).rejects.toMatchObject({ option: 'keyPrefix' });
      await expect(openRedisSessionStore({ client: {} as Redis })).rejects.toMatchObject({ option: 'client' });
    });

    it('refuses keys written by another layout version and changes nothing', async () => {
      const admin = new Redis(url);
      try {
        await admin.set(`${keyPrefix}schema`, String(redisSchemaVersion + 1));
        await expect(openRedisSessionStore({ url, keyPrefix })).rejects.toBeInstanceOf(SessionStoreSchemaError);
        expect(await admin.get(`${keyPrefix}schema`)).toBe(String(redisSchemaVersion + 1));
      } finally {
        await admin.quit();
      }
    });

    it('fails clearly when the server cannot be reached', async () => {
      await expect(openRedisSessionStore({ url: 'redis://127.0.0.1:1', keyPrefix })).rejects.toBeInstanceOf(
        SessionStoreUnavailableError,
      );
    });
  });
});
