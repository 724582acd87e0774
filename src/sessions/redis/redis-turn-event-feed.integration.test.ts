import { afterEach, describe, expect, it } from 'vitest';
import {
  redisKeysUnder as keysUnder,
  removeRedisPrefix as removePrefix,
  uniqueRedisPrefix as uniquePrefix,
} from '../../../test/support/redis-key-prefix.js';
import { redisReachable, redisUrl } from '../../../test/support/services.js';
import { describeTurnEventFeedConformance } from '../testing/turn-event-feed-conformance.js';
import { openRedisTurnEventFeed } from './redis-turn-event-feed.js';

const url = redisUrl;

describe.runIf(redisReachable)('Redis turn event feed', () => {
  describeTurnEventFeedConformance(
    'redis',
    async () => {
      const keyPrefix = uniquePrefix();
      return { open: () => openRedisTurnEventFeed({ url, keyPrefix }), destroy: () => removePrefix(keyPrefix) };
    },
    { shared: true },
  );

  describe('openRedisTurnEventFeed specifics', () => {
    let keyPrefix = uniquePrefix();
    afterEach(async () => {
      await removePrefix(keyPrefix);
      keyPrefix = uniquePrefix();
    });

    it('keeps a turn only for its retention after the last publish', async () => {
      const feed = await openRedisTurnEventFeed({ url, keyPrefix, retainSeconds: 1 });
      await feed.publish({ userId: 'u', sessionId: 's', turnId: 't' }, [{ id: 'a', data: 1 }], { end: true });
      expect(await keysUnder(keyPrefix)).toHaveLength(2);
      await new Promise((resolve) => setTimeout(resolve, 2100));
      expect(await keysUnder(keyPrefix)).toEqual([]);
      await feed.close();
    });

    it('leaves nothing behind for a reader of a turn nothing was published to', async () => {
      const feed = await openRedisTurnEventFeed({ url, keyPrefix });
      const controller = new AbortController();
      const reading = (async () => {
        for await (const _ of feed.read(
          { userId: 'u', sessionId: 's', turnId: 'guess' },
          { signal: controller.signal },
        ));
      })();
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort();
      await reading;
      expect(await keysUnder(keyPrefix)).toEqual([]);
      await feed.close();
    });

    it('names a bad option and does not show the URL, which may hold a password', async () => {
      await expect(openRedisTurnEventFeed({ url, keyPrefix, retainSeconds: 0 })).rejects.toThrow(/retainSeconds/);
      await expect(openRedisTurnEventFeed({ url: 'http://user:secret@host' })).rejects.not.toThrow(/secret/);
    });
  });
});
