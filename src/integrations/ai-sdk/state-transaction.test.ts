import { describe, expect, it } from 'vitest';
import type { StateView } from '../../tools/types.js';
import { beginStateTransaction } from './state-transaction.js';

function mapState(initial: Record<string, string>): StateView {
  const values = new Map(Object.entries(initial));
  return {
    get: (key) => values.get(key),
    set: (key, value) => void (value === null ? values.delete(key) : values.set(key, value)),
    keys: () => [...values.keys()],
  };
}

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
