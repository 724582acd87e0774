/**
 * Keeps the first `limit` bytes of a stream and counts the rest, so a command printing gigabytes
 * costs the caller at most `limit` bytes of memory. The kept text never ends in half a character.
 */
export class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private keptBytes = 0;
  private droppedBytes = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    const room = this.limit - this.keptBytes;
    if (room >= chunk.length) {
      this.chunks.push(chunk);
      this.keptBytes += chunk.length;
      return;
    }
    if (room > 0) {
      this.chunks.push(chunk.subarray(0, room));
      this.keptBytes += room;
    }
    this.droppedBytes += chunk.length - Math.max(room, 0);
  }

  /** The kept text, cut back to a character boundary when bytes were dropped, and the dropped count. */
  finish(): { text: string; truncated: boolean; droppedBytes: number } {
    let kept = Buffer.concat(this.chunks, this.keptBytes);
    let dropped = this.droppedBytes;
    if (dropped > 0) {
      const end = utf8BoundaryAtOrBefore(kept, kept.length);
      dropped += kept.length - end;
      kept = kept.subarray(0, end);
    }
    return { text: kept.toString('utf8'), truncated: dropped > 0, droppedBytes: dropped };
  }
}

/**
 * The largest offset <= `end` that does not split a UTF-8 sequence. Only the last (up to) four
 * bytes need looking at: a lead byte further back would already be a complete character.
 */
export function utf8BoundaryAtOrBefore(bytes: Uint8Array, end: number): number {
  for (let back = 1; back <= 4 && end - back >= 0; back += 1) {
    const byte = bytes[end - back] as number;
    if ((byte & 0b1100_0000) === 0b1000_0000) continue; // continuation byte: keep looking for the lead
    const length = byte < 0x80 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return back >= length ? end : end - back;
  }
  return end;
}
