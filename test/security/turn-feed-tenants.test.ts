import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryTurnEventFeed } from '../../src/sessions/memory-turn-event-feed.js';
import { openRedisTurnEventFeed } from '../../src/sessions/redis/redis-turn-event-feed.js';
import type { FeedEvent, TurnEventFeed, TurnFeedKey } from '../../src/sessions/turn-event-feed.js';
import { removeRedisPrefix, uniqueRedisPrefix } from '../support/redis-key-prefix.js';
import { redisReachable, redisUrl } from '../support/services.js';

/**
 * Mallory controls her own ids (user, session, turn, event ids) and the cursor she resumes from.
 * She must not read Alice's turn, nor write into it, by spelling her ids so that they encode to
 * Alice's keys, nor reach it with a cursor taken from Alice's feed.
 */
const alice: TurnFeedKey = { appName: 'app', userId: 'alice', sessionId: 's:1', turnId: 't' };
const forgeries: TurnFeedKey[] = [
  { appName: 'app', userId: 'alice}', sessionId: 's:1', turnId: 't' },
  { appName: 'app', userId: 'alice', sessionId: 's%3A1', turnId: 't' },
  { appName: 'app', userId: 'alice', sessionId: 's', turnId: '1:t' },
  { appName: 'app:alice', userId: 's', sessionId: '1', turnId: 't' },
  { appName: 'app%3Aalice', userId: 's', sessionId: '1', turnId: 't' },
];

async function readAll(feed: TurnEventFeed, key: TurnFeedKey, after?: string): Promise<FeedEvent[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 150);
  const read: FeedEvent[] = [];
  try {
    for await (const event of feed.read(key, { signal: controller.signal, ...(after === undefined ? {} : { after }) }))
      read.push(event);
  } finally {
    clearTimeout(timer);
  }
  return read;
}

function attacks(name: string, open: () => Promise<TurnEventFeed>) {
  describe(`${name} turn feed: one tenant's ids never reach another's turn`, () => {
    it('reads nothing of Alice through forged ids, and writes nothing into her turn', async () => {
      const feed = await open();
      await feed.publish(alice, [{ id: 'secret', data: 'ALICE-SECRET' }]);
      for (const forged of forgeries) {
        expect(await readAll(feed, forged)).toEqual([]);
        await feed.publish(forged, [{ id: 'injected', data: 'MALLORY' }], { end: true });
      }
      expect((await readAll(feed, alice)).map((event) => event.data)).toEqual(['ALICE-SECRET']);
      await feed.close();
    });

    it("does not resume her own turn from a cursor of Alice's", async () => {
      const feed = await open();
      await feed.publish(alice, [{ id: 'alice-1', data: 1 }]);
      const mallory = { ...alice, userId: 'mallory' };
      await feed.publish(mallory, [{ id: 'm-1', data: 2 }]);
      await expect(readAll(feed, mallory, 'alice-1')).rejects.toMatchObject({ code: 'TURN_FEED_CURSOR_UNKNOWN' });
      await feed.close();
    });
  });
}

attacks('memory', async () => createMemoryTurnEventFeed());

const keyPrefix = uniqueRedisPrefix();
describe.runIf(redisReachable)('redis', () => {
  attacks('redis', () => openRedisTurnEventFeed({ url: redisUrl, keyPrefix }));
  afterAll(() => removeRedisPrefix(keyPrefix));
});
