import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { HttpSessionSlots, type SessionSlot, type SessionSlotRefusal } from './http-session-slots.js';

interface FakeSession {
  name: string;
  busy: boolean;
}

function table(settings: { maxSessions: number; reclaimAfterMs?: number; waitMs?: number; maxWaiting?: number }) {
  const ended: string[] = [];
  const slots = new HttpSessionSlots<FakeSession>({
    maxSessions: settings.maxSessions,
    reclaimAfterMs: settings.reclaimAfterMs ?? 50,
    waitMs: settings.waitMs ?? 2_000,
    maxWaiting: settings.maxWaiting ?? 8,
    holdsWork: (session) => session.busy,
    end: async (session) => {
      ended.push(session.name);
    },
  });
  return { slots, ended };
}

const never = new AbortController().signal;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function open(slots: HttpSessionSlots<FakeSession>, name: string, busy = false): Promise<FakeSession> {
  const slot = (await slots.acquire(never)) as SessionSlot<FakeSession>;
  expect(slot.granted).toBe(true);
  const session = { name, busy };
  slot.fill(name, session);
  return session;
}

describe('HttpSessionSlots', () => {
  it('reclaims the least recently used idle session for a newcomer, and only once it is idle long enough', async () => {
    const { slots, ended } = table({ maxSessions: 2, reclaimAfterMs: 100 });
    // Taken before a is opened, on the clock the slots use: a loaded host's sleep below may take
    // far more than 10 ms, so the wait is judged from a's opening, not from the third's request.
    const beforeA = Date.now();
    await open(slots, 'a');
    await sleep(10);
    await open(slots, 'b');
    const third = await slots.acquire(never);
    expect(third.granted).toBe(true);
    // a became reclaimable 100 ms after it was opened, not before.
    expect(Date.now() - beforeA).toBeGreaterThanOrEqual(100);
    expect(ended).toEqual(['a']);
    expect(slots.stats()).toMatchObject({ reclaimed: 1, peak: 2 });
  });

  it('never reclaims a session with a request, a stream or work held; the newcomer is refused with Retry-After', async () => {
    const { slots, ended } = table({ maxSessions: 3, reclaimAfterMs: 10, waitMs: 200 });
    await open(slots, 'streaming');
    await open(slots, 'calling');
    await open(slots, 'working', true);
    const stream = new EventEmitter();
    const call = new EventEmitter();
    slots.track('streaming', 'stream', stream);
    slots.track('calling', 'request', call);
    const refused = (await slots.acquire(never)) as SessionSlotRefusal;
    expect(refused.granted).toBe(false);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.message).toContain('3 sessions open, its limit');
    expect(ended).toEqual([]);
    // The call ends: 10 ms later its session is idle and goes to the next newcomer.
    call.emit('close');
    expect((await slots.acquire(never)).granted).toBe(true);
    expect(ended).toEqual(['calling']);
  });

  it('takes a session whose client closed its stream at once, whatever the reclaim delay', async () => {
    const { slots, ended } = table({ maxSessions: 1, reclaimAfterMs: 60_000, waitMs: 500 });
    await open(slots, 'leaver');
    const stream = new EventEmitter();
    slots.track('leaver', 'stream', stream);
    stream.emit('close');
    expect((await slots.acquire(never)).granted).toBe(true);
    expect(ended).toEqual(['leaver']);
  });

  it('serves waiters first come first served, refuses past maxWaiting at once, and drops a waiter that gave up', async () => {
    const { slots } = table({ maxSessions: 1, reclaimAfterMs: 60_000, waitMs: 5_000, maxWaiting: 2 });
    const holder = await slots.acquire(never);
    const order: string[] = [];
    const gaveUp = new AbortController();
    const first = slots.acquire(never).then((answer) => {
      order.push('first');
      return answer;
    });
    const quitter = slots.acquire(gaveUp.signal);
    const overflow = (await slots.acquire(never)) as SessionSlotRefusal;
    expect(overflow.granted).toBe(false);
    gaveUp.abort();
    expect(((await quitter) as SessionSlotRefusal).message).toBe('the client stopped waiting');
    const second = slots.acquire(never).then((answer) => {
      order.push('second');
      return answer;
    });
    expect(slots.stats().waiting).toBe(2);
    (holder as SessionSlot<FakeSession>).release();
    const granted = (await first) as SessionSlot<FakeSession>;
    expect(granted.granted).toBe(true);
    granted.release();
    expect((await second).granted).toBe(true);
    expect(order).toEqual(['first', 'second']);
  });

  it('close() refuses waiters and ends every session, and one set up meanwhile', async () => {
    const { slots, ended } = table({ maxSessions: 2, reclaimAfterMs: 60_000 });
    await open(slots, 'a');
    const late = (await slots.acquire(never)) as SessionSlot<FakeSession>;
    const waiting = slots.acquire(never);
    await slots.close();
    expect(((await waiting) as SessionSlotRefusal).message).toBe('the server is closing');
    late.fill('late', { name: 'late', busy: false });
    await sleep(0);
    expect(ended.sort()).toEqual(['a', 'late']);
    expect(slots.size).toBe(0);
  });
});
