import { createHash, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SnapshotNotFoundError } from '../custody-errors.js';
import type { WorkspaceSnapshotStore } from '../snapshot-store.js';

/** A store under test and how to remove what it left. */
export interface SnapshotStoreSubject {
  store: WorkspaceSnapshotStore;
  /** Opens a second store on the same backing storage, as another worker would. */
  openAnother(): Promise<WorkspaceSnapshotStore>;
  destroy(): Promise<void>;
}

function digestOf(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function* chunked(bytes: Buffer, size = 64 * 1024): AsyncGenerator<Buffer> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

async function readAll(stream: AsyncIterable<Uint8Array>): Promise<{ bytes: Buffer; chunks: number }> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.from(chunk));
  return { bytes: Buffer.concat(parts), chunks: parts.length };
}

/**
 * What every WorkspaceSnapshotStore must do, run against each from its own test file with a
 * subject on real storage: bytes back as they went in (several MiB, streamed in and out), an
 * immutable name, a clear not-found error, deletion, and two stores on one storage agreeing.
 */
export function describeSnapshotStoreConformance(name: string, open: () => Promise<SnapshotStoreSubject>): void {
  describe(`snapshot store conformance: ${name}`, () => {
    let subject: SnapshotStoreSubject;
    const others: WorkspaceSnapshotStore[] = [];

    beforeEach(async () => {
      subject = await open();
    });

    afterEach(async () => {
      for (const store of others.splice(0)) await store.close();
      await subject.store.close();
      await subject.destroy();
    });

    it('gives back the bytes that were put, streamed in more than one chunk', async () => {
      const bytes = randomBytes(5 * 1024 * 1024 + 123);
      const digest = digestOf(bytes);
      expect(await subject.store.has(digest)).toBe(false);
      await subject.store.put(digest, chunked(bytes), bytes.length);
      expect(await subject.store.has(digest)).toBe(true);
      const read = await readAll(await subject.store.open(digest));
      expect(read.bytes.equals(bytes)).toBe(true);
      expect(read.chunks).toBeGreaterThan(1);
    });

    it('keeps an empty snapshot', async () => {
      const digest = digestOf(Buffer.alloc(0));
      await subject.store.put(digest, chunked(Buffer.alloc(0)), 0);
      expect((await readAll(await subject.store.open(digest))).bytes.length).toBe(0);
    });

    it('never replaces what a digest names: a second put of it keeps the first bytes', async () => {
      const bytes = randomBytes(1000);
      const digest = digestOf(bytes);
      await subject.store.put(digest, chunked(bytes), bytes.length);
      await subject.store.put(digest, chunked(randomBytes(1000)), 1000);
      expect((await readAll(await subject.store.open(digest))).bytes.equals(bytes)).toBe(true);
    });

    it('lets two stores put the same digest at once, and both read it', async () => {
      const another = await subject.openAnother();
      others.push(another);
      const bytes = randomBytes(2 * 1024 * 1024);
      const digest = digestOf(bytes);
      await Promise.all([
        subject.store.put(digest, chunked(bytes), bytes.length),
        another.put(digest, chunked(bytes), bytes.length),
      ]);
      expect((await readAll(await another.open(digest))).bytes.equals(bytes)).toBe(true);
      expect((await readAll(await subject.store.open(digest))).bytes.equals(bytes)).toBe(true);
    });

    it('says which snapshot is missing, before any streaming', async () => {
      const digest = digestOf(Buffer.from('never stored'));
      const error = await subject.store.open(digest).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SnapshotNotFoundError);
      expect((error as Error).message).toContain(digest);
    });

    it('deletes a snapshot, and deleting a missing one is no error', async () => {
      const bytes = randomBytes(300);
      const digest = digestOf(bytes);
      await subject.store.put(digest, chunked(bytes), bytes.length);
      await subject.store.delete(digest);
      expect(await subject.store.has(digest)).toBe(false);
      await expect(subject.store.open(digest)).rejects.toBeInstanceOf(SnapshotNotFoundError);
      await subject.store.delete(digest);
    });

    it('refuses a digest that is not 64 hex digits, naming the argument', async () => {
      for (const digest of ['../../etc/passwd', 'A'.repeat(64), 'abc']) {
        await expect(subject.store.has(digest)).rejects.toThrow(/"digest"/);
        await expect(subject.store.open(digest)).rejects.toThrow(/"digest"/);
      }
    });
  });
}
