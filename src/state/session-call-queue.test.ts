import { describe, expect, it } from 'vitest';
import { callQueueOf, SessionCallQueue } from './session-call-queue.js';

function later<T>(value: T, milliseconds: number): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), milliseconds));
}

describe('SessionCallQueue', () => {
  it('runs the calls of one session and agent one after another, even after a failure', async () => {
    const queue = new SessionCallQueue();
    const order: string[] = [];
    const first = queue.run('s', 'a', async () => {
      order.push('first start');
      await later(undefined, 20);
      order.push('first end');
      throw new Error('first failed');
    });
    const second = queue.run('s', 'a', async () => {
      order.push('second');
      return 2;
    });
    await expect(first).rejects.toThrow('first failed');
    await expect(second).resolves.toBe(2);
    expect(order).toEqual(['first start', 'first end', 'second']);
  });

  it('lets other sessions and agents run alongside', async () => {
    const queue = new SessionCallQueue();
    const order: string[] = [];
    const slow = queue.run('s', 'a', async () => {
      await later(undefined, 30);
      order.push('s/a');
    });
    const otherAgent = queue.run('s', 'b', async () => void order.push('s/b'));
    const otherSession = queue.run('t', 'a', async () => void order.push('t/a'));
    await Promise.all([slow, otherAgent, otherSession]);
    expect(order).toEqual(['s/b', 't/a', 's/a']);
  });

  it('gives every caller of one state the same queue', () => {
    const state = {};
    expect(callQueueOf(state)).toBe(callQueueOf(state));
    expect(callQueueOf({})).not.toBe(callQueueOf(state));
  });
});
