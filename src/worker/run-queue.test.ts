import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunQueue } from './run-queue.js';

describe('RunQueue', () => {
  afterEach(() => vi.useRealTimers());

  it('runs up to the limit, queues up to the limit, and refuses the rest at once', async () => {
    const queue = new RunQueue({ maxConcurrentRuns: 2, maxQueuedRuns: 1, queueWaitMs: 10_000 });
    const first = await queue.enter();
    await queue.enter();
    const waiting = queue.enter();
    await expect(queue.enter()).rejects.toMatchObject({ code: 'WORKER_BUSY' });
    expect([queue.running, queue.waiting]).toEqual([2, 1]);
    first();
    first(); // a second call gives nothing back twice
    await waiting;
    expect([queue.running, queue.waiting]).toEqual([2, 0]);
  });

  it('refuses a waiting run after queueWaitMs and frees its place', async () => {
    vi.useFakeTimers();
    const queue = new RunQueue({ maxConcurrentRuns: 1, maxQueuedRuns: 1, queueWaitMs: 1_000 });
    const leave = await queue.enter();
    const waiting = queue.enter();
    const refused = expect(waiting).rejects.toMatchObject({ code: 'WORKER_BUSY', retryAfterMs: 1_000 });
    await vi.advanceTimersByTimeAsync(1_001);
    await refused;
    expect(queue.waiting).toBe(0);
    leave();
    expect(queue.running).toBe(0);
  });
});
