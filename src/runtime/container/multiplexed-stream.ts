/**
 * Splits the Engine API's multiplexed exec stream (no TTY): each frame is an 8-byte header, the
 * stream (1 stdout, 2 stderr) in byte 0 and the payload length big-endian in bytes 4-7, then the
 * payload. Frames arrive cut anywhere, so the header and payload are reassembled across chunks.
 * Only the current frame's header is held: a payload goes straight to its sink, so memory stays
 * bounded whatever a frame claims to hold.
 */
export class MultiplexedStreamReader {
  private header = Buffer.alloc(0);
  private remaining = 0;
  private stream = 0;

  constructor(private readonly sink: (stream: 'stdout' | 'stderr', chunk: Buffer) => void) {}

  push(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.remaining === 0) {
        const need = 8 - this.header.length;
        this.header = Buffer.concat([this.header, chunk.subarray(offset, offset + need)]);
        offset += Math.min(need, chunk.length - offset);
        if (this.header.length < 8) return;
        this.stream = this.header[0] as number;
        this.remaining = this.header.readUInt32BE(4);
        this.header = Buffer.alloc(0);
        continue;
      }
      const take = Math.min(this.remaining, chunk.length - offset);
      const payload = chunk.subarray(offset, offset + take);
      offset += take;
      this.remaining -= take;
      // Stream 0 (stdin echo) and 3 (a daemon's system error) are not the command's output; 3 goes to stderr so it is seen.
      if (this.stream === 1) this.sink('stdout', payload);
      else if (this.stream === 2 || this.stream === 3) this.sink('stderr', payload);
    }
  }
}
