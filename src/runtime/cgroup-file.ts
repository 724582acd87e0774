import { closeSync, constants, openSync, readSync, writeSync } from 'node:fs';

/** Large enough for every control file a run reads in one call; a longer text takes several. */
const scratch = Buffer.alloc(4096);

/**
 * One control file of a run's cgroup, opened the first time it is used and kept open for the
 * cgroup's life. A run reads or writes about twenty of them; through a kept descriptor each is a
 * positioned read or write, where readFileSync and writeFileSync open, read or write, and close
 * every time: on a virtualised host, where each system call is dear, that halved the cgroup's
 * share of a run's CPU. The kernel regenerates a control file's text for every read from offset 0,
 * so a kept descriptor shows current figures. Not for cgroup v1's `cgroup.procs`: the kernel builds
 * its pid list once per open file and serves it again for a second (RunCgroup opens that afresh).
 */
export class CgroupFile {
  private descriptor: number | undefined;

  constructor(
    readonly path: string,
    private readonly access: 'read' | 'write',
  ) {}

  /** The whole text, read until the kernel reports its end (a long cgroup.procs comes in parts). */
  read(): string {
    const descriptor = this.open();
    let text = '';
    for (let position = 0; ; ) {
      const count = readSync(descriptor, scratch, 0, scratch.length, position);
      if (count === 0) return text;
      text += scratch.toString('latin1', 0, count);
      position += count;
    }
  }

  write(text: string): void {
    writeSync(this.open(), text, 0);
  }

  close(): void {
    if (this.descriptor === undefined) return;
    try {
      closeSync(this.descriptor);
    } catch {
      // already closed
    }
    this.descriptor = undefined;
  }

  private open(): number {
    this.descriptor ??= openSync(this.path, this.access === 'read' ? constants.O_RDONLY : constants.O_WRONLY);
    return this.descriptor;
  }
}
