import { describe, expect, it } from 'vitest';
import { createInMemoryStateView } from './in-memory-state-view.js';
import { PendingStateWrites } from './pending-state-writes.js';
import { applyDelta, overlayState } from './state-delta.js';
import { beginStateTransaction } from './state-transaction.js';
import type { StateView } from './state-view.js';

function mapState(initial: Record<string, string>): StateView {
  const values = new Map(Object.entries(initial));
  return {
    get: (key) => values.get(key),
    set: (key, value) => void (value === null ? values.delete(key) : values.set(key, value)),
    keys: () => [...values.keys()],
  };
}

describe('PendingStateWrites', () => {
  it('reads the base with the writes on top, keys in base order then new keys in write order', () => {
    const writes = new PendingStateWrites(
      new Map([
        ['a', '1'],
        ['b', '2'],
      ]),
      { a: null, c: '3' },
    );
    writes.set('d', '4');
    expect(writes.get('a')).toBeUndefined();
    expect(writes.get('b')).toBe('2');
    expect(writes.keys()).toEqual(['b', 'c', 'd']);
    expect([...writes.snapshot()]).toEqual([
      ['b', '2'],
      ['c', '3'],
      ['d', '4'],
    ]);
  });

  it('commits only real changes into a writable base, and refuses a read-only one', () => {
    const parent = mapState({ a: '1' });
    const writes = new PendingStateWrites(parent);
    writes.set('a', '1');
    writes.set('b', '2');
    expect(writes.delta()).toEqual({ a: '1', b: '2' });
    expect(writes.commit()).toEqual({ b: '2' });
    expect(parent.keys()).toEqual(['a', 'b']);
    expect(writes.delta()).toEqual({});
    const map = new Map([['gone', 'x']]);
    const overMap = new PendingStateWrites(map, { gone: null, kept: 'y' });
    expect(overMap.commit()).toEqual({ gone: null, kept: 'y' });
    expect([...map]).toEqual([['kept', 'y']]);
    const snapshot = { get: () => undefined, keys: () => [] };
    const overSnapshot = new PendingStateWrites(snapshot, { a: '1' });
    expect(() => overSnapshot.commit()).toThrow(/read-only/);
  });

  it('refuses an empty key and a value that is not a string', () => {
    const writes = new PendingStateWrites(new Map());
    expect(() => writes.set('', 'x')).toThrow(/non-empty/);
    expect(() => writes.set('k', 1 as unknown as string)).toThrow(/"k" must be a string or null/);
  });

  it('backs overlayState and applyDelta without changing their input', () => {
    const base = new Map([['a', '1']]);
    expect([...overlayState(base, { a: '2', b: '3' }).keys()]).toEqual(['a', 'b']);
    expect(overlayState(base, { a: '2' }).get('a')).toBe('2');
    expect([...applyDelta(base, { a: null, b: '3' })]).toEqual([['b', '3']]);
    expect([...base]).toEqual([['a', '1']]);
  });
});

describe('createInMemoryStateView', () => {
  it('keeps writes pending until commit, and discard drops them', () => {
    const state = createInMemoryStateView({ a: '1' });
    state.set('b', '2');
    expect(state.delta()).toEqual({ b: '2' });
    state.discard();
    expect(state.keys()).toEqual(['a']);
    state.set('a', null);
    state.commit();
    expect(state.delta()).toEqual({});
    expect([...state.snapshot()]).toEqual([]);
  });
});

describe('beginStateTransaction', () => {
  it('shows pending writes to the call only and commits the real changes', () => {
    const parent = mapState({ a: '1', b: '2' });
    const transaction = beginStateTransaction(parent);
    transaction.view.set('a', null);
    transaction.view.set('c', '3');
    transaction.view.set('b', '2');
    expect(transaction.view.get('a')).toBeUndefined();
    expect(transaction.view.keys()).toEqual(['b', 'c']);
    expect(parent.keys()).toEqual(['a', 'b']);
    expect(transaction.commit()).toEqual({ a: null, c: '3' });
    expect(parent.keys()).toEqual(['b', 'c']);
    expect(() => transaction.commit()).toThrow(/twice/);
  });

  it('leaves the parent untouched when never committed', () => {
    const parent = mapState({ a: '1' });
    beginStateTransaction(parent).view.set('a', '9');
    expect(parent.get('a')).toBe('1');
  });
});
