import { describe, expect, it } from 'vitest';
import { createMemoryTurnEventFeed } from './memory-turn-event-feed.js';
import { describeTurnEventFeedConformance } from './testing/turn-event-feed-conformance.js';

describeTurnEventFeedConformance(
  'memory',
  async () => {
    // One feed per backend: a memory feed is one process's, so "another worker" is the same feed.
    const feed = createMemoryTurnEventFeed();
    return { open: async () => feed, destroy: () => feed.close() };
  },
  { shared: false },
);

describe('createMemoryTurnEventFeed', () => {
  it('refuses a retention that is not a whole number of milliseconds', () => {
    expect(() => createMemoryTurnEventFeed({ retainEndedMs: -1 })).toThrow(/retainEndedMs"? must be a whole number/);
  });

  it('forgets an ended turn after its retention, so a resume then says the cursor is gone', async () => {
    const feed = createMemoryTurnEventFeed({ retainEndedMs: 20 });
    const turn = { userId: 'u', sessionId: 's', turnId: 't' };
    await feed.publish(turn, [{ id: 'a', data: 1 }], { end: true });
    await new Promise((resolve) => setTimeout(resolve, 60));
    const resumed = feed.read(turn, { after: 'a' })[Symbol.asyncIterator]().next();
    await expect(resumed).rejects.toMatchObject({ code: 'TURN_FEED_CURSOR_UNKNOWN' });
    await feed.close();
  });
});
