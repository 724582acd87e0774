import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TurnFeedCursorError, TurnFeedEndedError } from '../session-errors.js';
import type { FeedEvent, TurnEventFeed, TurnFeedKey } from '../turn-event-feed.js';

/** Where feeds live for one test: `open` may be called several times (several workers, one backend). */
export interface TurnEventFeedBackend {
  open(): Promise<TurnEventFeed>;
  destroy(): Promise<void>;
}

/**
 * What every TurnEventFeed does, as one vitest suite: nothing twice, nothing lost, resumable on
 * another connection (for a shared backend, another worker), bounded by the turn's end. Its length
 * is the list of cases, each a few lines, sharing the backend's set-up: splitting it would only
 * move that set-up into parameters.
 */
export function describeTurnEventFeedConformance(
  name: string,
  createBackend: () => Promise<TurnEventFeedBackend>,
  options: { shared: boolean },
): void {
  describe(`${name} turn event feed conformance`, () => {
    let backend: TurnEventFeedBackend;
    let opened: TurnEventFeed[];
    const open = async () => {
      const feed = await backend.open();
      opened.push(feed);
      return feed;
    };
    beforeEach(async () => {
      opened = [];
      backend = await createBackend();
    });
    afterEach(async () => {
      for (const feed of opened) await feed.close();
      await backend.destroy();
    });

    const turn: TurnFeedKey = { userId: 'user-1', sessionId: 'session-1', turnId: 'turn-1' };
    const events = (...ids: string[]): FeedEvent[] => ids.map((id) => ({ id, data: { type: 'text-delta', text: id } }));
    const collect = async (iterable: AsyncIterable<FeedEvent>) => {
      const ids: string[] = [];
      for await (const event of iterable) ids.push(event.id);
      return ids;
    };

    it('gives a finished turn back in order, with its data, and stops at its end', async () => {
      const feed = await open();
      await feed.publish(turn, events('a', 'b'));
      await feed.publish(turn, [{ id: 'c', data: { nested: [1, 'two', null] } }], { end: true });
      const read: FeedEvent[] = [];
      for await (const event of feed.read(turn)) read.push(event);
      expect(read).toEqual([
        { id: 'a', data: { type: 'text-delta', text: 'a' } },
        { id: 'b', data: { type: 'text-delta', text: 'b' } },
        { id: 'c', data: { nested: [1, 'two', null] } },
      ]);
    });

    it('adds an id once, however often a replayed step publishes it', async () => {
      const feed = await open();
      await feed.publish(turn, events('a', 'b'));
      await feed.publish(turn, events('a', 'b', 'c'));
      await feed.publish(turn, events('c', 'c', 'd'), { end: true });
      await feed.publish(turn, events('a', 'd'), { end: true });
      expect(await collect(feed.read(turn))).toEqual(['a', 'b', 'c', 'd']);
    });

    it('resumes after the last event a client received, and streams what comes next as it comes', async () => {
      const writer = await open();
      const reader = options.shared ? await open() : writer;
      await writer.publish(turn, events('a', 'b'));
      const resumed = collect(reader.read(turn, { after: 'a' }));
      await new Promise((resolve) => setTimeout(resolve, 50));
      await writer.publish(turn, events('c'));
      await writer.publish(turn, events('d'), { end: true });
      expect(await resumed).toEqual(['b', 'c', 'd']);
      expect(await collect(reader.read(turn, { after: 'd' }))).toEqual([]);
    });

    it('waits for a turn nothing was published to yet', async () => {
      const feed = await open();
      const early = collect(feed.read(turn));
      await new Promise((resolve) => setTimeout(resolve, 50));
      await feed.publish(turn, events('a'), { end: true });
      expect(await early).toEqual(['a']);
    });

    it('refuses a cursor it does not hold, naming it', async () => {
      const feed = await open();
      await feed.publish(turn, events('a'));
      const reading = collect(feed.read(turn, { after: 'never-sent' }));
      await expect(reading).rejects.toBeInstanceOf(TurnFeedCursorError);
      await expect(collect(feed.read(turn, { after: 'never-sent' }))).rejects.toMatchObject({
        code: 'TURN_FEED_CURSOR_UNKNOWN',
        after: 'never-sent',
      });
    });

    it('refuses a new event after the end, and lets a replay publish the old ones again', async () => {
      const feed = await open();
      await feed.publish(turn, events('a'), { end: true });
      await expect(feed.publish(turn, events('a', 'late'))).rejects.toBeInstanceOf(TurnFeedEndedError);
      await expect(feed.publish(turn, events('a'))).resolves.toBeUndefined();
      expect(await collect(feed.read(turn))).toEqual(['a']);
    });

    it('stops a waiting reader when its signal aborts', async () => {
      const feed = await open();
      await feed.publish(turn, events('a'));
      const controller = new AbortController();
      const reading = collect(feed.read(turn, { signal: controller.signal }));
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort();
      expect(await reading).toEqual(['a']);
    });

    it('keeps turns, sessions, users and apps apart, whatever characters their ids hold', async () => {
      const feed = await open();
      const keys: TurnFeedKey[] = [
        turn,
        { ...turn, turnId: 'turn-2' },
        { ...turn, sessionId: 'session-1:turn-1', turnId: 'x' },
        { ...turn, userId: 'user-1}:session-1' },
        { ...turn, appName: 'other' },
      ];
      for (const [index, key] of keys.entries()) await feed.publish(key, events(`only-${index}`), { end: true });
      for (const [index, key] of keys.entries()) expect(await collect(feed.read(key))).toEqual([`only-${index}`]);
    });

    it('checks every event before publishing any, naming the bad field', async () => {
      const feed = await open();
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      await expect(feed.publish(turn, [...events('a'), { id: '', data: 1 }])).rejects.toMatchObject({
        code: 'SESSION_INPUT_INVALID',
        argument: 'events[1].id',
      });
      await expect(feed.publish(turn, [...events('a'), { id: 'b', data: cyclic }])).rejects.toMatchObject({
        argument: 'events[1].data',
      });
      await expect(feed.publish({ ...turn, turnId: '' }, events('a'))).rejects.toMatchObject({
        argument: 'key.turnId',
      });
      await feed.publish(turn, events('z'), { end: true });
      expect(await collect(feed.read(turn))).toEqual(['z']);
    });
  });
}
