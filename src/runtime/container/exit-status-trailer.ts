/**
 * Takes the exit status a command wrapper prints as the last bytes of its stderr
 * (`<marker><code>`) off the stream. podman's API service may remove an ended exec session before
 * it can be inspected (it does with `exit_command_delay = 0`, the setting that stops its exec
 * monitors from lingering, docs/runtimes.md), so the status travels in band as well. The last
 * bytes of the stream are held back (never more than the trailer's length), so what reaches the
 * sink, and so the output cap, is the command's output only.
 */
export class ExitStatusTrailer {
  private held: Buffer = Buffer.alloc(0);
  private readonly holdBytes: number;

  constructor(
    private readonly marker: string,
    private readonly sink: (chunk: Buffer) => void,
  ) {
    // The marker and at most three digits (an exit status is 0..255).
    this.holdBytes = Buffer.byteLength(marker) + 3;
  }

  push(chunk: Buffer): void {
    const joined = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk]);
    const release = joined.length - this.holdBytes;
    if (release <= 0) {
      this.held = joined;
      return;
    }
    this.sink(joined.subarray(0, release));
    this.held = Buffer.from(joined.subarray(release));
  }

  /** Flushes what is not the trailer and returns the status it carried, undefined when none ended the stream. */
  finish(): number | undefined {
    const text = this.held.toString('latin1');
    const at = text.lastIndexOf(this.marker);
    const digits = at < 0 ? '' : text.slice(at + this.marker.length);
    if (at < 0 || !/^\d{1,3}$/.test(digits)) {
      if (this.held.length > 0) this.sink(this.held);
      return undefined;
    }
    if (at > 0) this.sink(this.held.subarray(0, at));
    return Number(digits);
  }
}
