import { describe, expect, it } from 'vitest';
import { MetadataWriteQueue } from './metadata-write-queue.js';
import { freshMetadata, type WorkspaceMetadata } from './workspace-metadata.js';

/** A store that keeps every write and can be held (to see what piles up) or made to fail. */
function store(initial?: WorkspaceMetadata) {
  const written: WorkspaceMetadata[] = [];
  let reads = 0;
  let failing = false;
  let held: Promise<void> | undefined;
  let release = (): void => undefined;
  const queue = new MetadataWriteQueue({
    read: async () => {
      reads += 1;
      return initial === undefined ? undefined : structuredClone(initial);
    },
    fresh: () => freshMetadata('session', new Date('2026-01-01T00:00:00Z')),
    write: async (metadata) => {
      // Serialised when the write starts, as writeMetadata does, then stored.
      const copy = structuredClone(metadata);
      await held;
      if (failing) throw new Error('disk full');
      written.push(copy);
    },
  });
  return {
    queue,
    written,
    reads: () => reads,
    fail: (value: boolean) => {
      failing = value;
    },
    hold: () => {
      held = new Promise((resolve) => {
        release = resolve;
      });
    },
    release: () => {
      held = undefined;
      release();
    },
  };
}

const addInput = (name: string) => (metadata: WorkspaceMetadata) => {
  metadata.inputs.push({ from: name, to: `work/inputs/${name}`, mode: 'copy', ts: 'x' });
  return metadata;
};

describe('MetadataWriteQueue', () => {
  it('reads the stored metadata once, and starts fresh when there is none', async () => {
    const stored = freshMetadata('stored', new Date());
    const existing = store(stored);
    await Promise.all([existing.queue.current(), existing.queue.current()]);
    expect((await existing.queue.current()).session_id).toBe('stored');
    expect(existing.reads()).toBe(1);
    expect((await store().queue.current()).session_id).toBe('session');
  });

  it('coalesces changes made while a write is under way into one next write, losing none', async () => {
    const { queue, written, hold, release } = store();
    await queue.change(addInput('first'));
    expect(written).toHaveLength(1);
    hold();
    const second = queue.change(addInput('second'));
    // Let the second write start (and wait on the held store) before the rest arrive.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const rest = ['third', 'fourth', 'fifth'].map((name) => queue.change(addInput(name)));
    release();
    await Promise.all([second, ...rest]);
    expect(written.map((metadata) => metadata.inputs.map((input) => input.from))).toEqual([
      ['first'],
      ['first', 'second'],
      ['first', 'second', 'third', 'fourth', 'fifth'],
    ]);
  });

  it('stamps updated_at and last_access on every change; a change that throws changes nothing', async () => {
    const { queue, written } = store();
    await queue.change(addInput('one'));
    expect(written[0]?.updated_at).not.toBe('2026-01-01T00:00:00.000Z');
    expect(written[0]?.last_access).toBe(written[0]?.updated_at);
    await expect(
      queue.change(() => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect((await queue.current()).inputs).toHaveLength(1);
    expect(written).toHaveLength(1);
  });

  it('reports a failed write from flush, and the next write stores everything', async () => {
    const { queue, written, fail } = store();
    fail(true);
    await expect(queue.change(addInput('lost?'))).rejects.toThrow('disk full');
    await expect(queue.flush()).rejects.toThrow('disk full');
    fail(false);
    await queue.flush();
    expect(written.at(-1)?.inputs.map((input) => input.from)).toEqual(['lost?']);
  });

  it('flush waits for changes still waiting on the first read', async () => {
    const { queue, written } = store();
    void queue.change(addInput('early'));
    await queue.flush();
    expect(written.at(-1)?.inputs.map((input) => input.from)).toEqual(['early']);
  });
});
