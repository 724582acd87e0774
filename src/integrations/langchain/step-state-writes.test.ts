import { describe, expect, it } from 'vitest';
import type { SkillboxGraphState } from './graph-state.js';
import { StepStateWrites } from './step-state-writes.js';

const state = (invocation: string, version: number, values: Record<string, string> = {}): SkillboxGraphState => ({
  version,
  invocation,
  values,
});

describe('StepStateWrites', () => {
  it('runs the calls of one invocation one at a time, each over the state the previous one left', async () => {
    const writes = new StepStateWrites();
    const snapshot = state('run-1', 3);
    const seen: number[] = [];
    const call = (key: string) =>
      writes.run(snapshot, 'assistant', async (base) => {
        seen.push(base.version);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return { result: key, state: { ...base, version: base.version + 1, values: { ...base.values, [key]: '1' } } };
      });
    await Promise.all([call('a'), call('b'), call('c')]);
    expect(seen).toEqual([3, 4, 5]);
    // The next step's snapshot already holds the newest state: it is read from the graph again.
    await writes.run(state('run-1', 6, { a: '1', b: '1', c: '1' }), 'assistant', async (base) => {
      expect(base.values).toEqual({ a: '1', b: '1', c: '1' });
      return { result: undefined, state: base };
    });
  });

  it('keeps invocations apart and drops the oldest beyond its bound', async () => {
    const writes = new StepStateWrites();
    const bump = (invocation: string) =>
      writes.run(state(invocation, 0), 'assistant', async (base) => ({
        result: base.version,
        state: { ...base, version: base.version + 1 },
      }));
    expect(await bump('x')).toBe(0);
    expect(await bump('y')).toBe(0);
    expect(await bump('x')).toBe(1);
    for (let index = 0; index < StepStateWrites.maxInvocations; index += 1) await bump(`filler-${index}`);
    // `x` was dropped: its next call starts from the graph's snapshot again.
    expect(await bump('x')).toBe(0);
  });
});
