import { utf8BoundaryAtOrBefore } from './capped-output.js';

/**
 * The output of a background process that nobody has read yet, at most `limit` bytes. Unlike a
 * run's CappedOutput, which keeps the beginning, this keeps the NEWEST bytes: a long-running
 * process (a server, a watcher) is polled for what it is doing now, and its latest lines say that.
 * The oldest unread bytes are dropped and counted; a read returns whole characters only and leaves
 * a character split across chunks for the next read.
 */
export class UnreadOutput {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private dropped = 0;

  constructor(private readonly limit: number) {}

  get size(): number {
    return this.bytes;
  }

  push(chunk: Buffer): void {
    if (this.limit === 0) {
      this.dropped += chunk.length;
      return;
    }
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    if (this.bytes <= this.limit) return;
    let all = Buffer.concat(this.chunks, this.bytes);
    let start = all.length - this.limit;
    // Never begin inside a character: skip continuation bytes (counted as dropped too).
    while (start < all.length && ((all[start] as number) & 0b1100_0000) === 0b1000_0000) start += 1;
    this.dropped += start;
    all = all.subarray(start);
    this.chunks = [all];
    this.bytes = all.length;
  }

  /** Takes the unread text (whole characters) and the count of bytes dropped since the last take. */
  take(final: boolean): { text: string; droppedBytes: number } {
    const all = Buffer.concat(this.chunks, this.bytes);
    const end = final ? all.length : utf8BoundaryAtOrBefore(all, all.length);
    const rest = all.subarray(end);
    this.chunks = rest.length > 0 ? [Buffer.from(rest)] : [];
    this.bytes = rest.length;
    const droppedBytes = this.dropped;
    this.dropped = 0;
    return { text: all.subarray(0, end).toString('utf8'), droppedBytes };
  }
}
