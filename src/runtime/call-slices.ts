/**
 * Many small file-system calls (a `stat` per entry of a folder, a copy per small file) cost several
 * times more through libuv's thread pool than made directly on a warm page cache: on the 2-core
 * machine the benchmarks run on, 200 `lstat`s took 1.4 ms synchronously and 8.6 ms as promises, 8
 * at a time, and copying 200 small files 15 ms against 26 ms (bench/staging.bench.ts measures the
 * whole staging). Code that makes such calls synchronously asks `due()` after each one and, when it
 * is, awaits `yield()`: other work on the event loop then waits at most one slice (plus one call),
 * however large the folder.
 */
export class CallSlices {
  #sliceStarted = performance.now();

  constructor(private readonly sliceMs = 2) {}

  /** True once the current slice has run its length. */
  due(): boolean {
    return performance.now() - this.#sliceStarted >= this.sliceMs;
  }

  /** Lets the event loop run what waits (timers, I/O callbacks), then starts a new slice. */
  async yield(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.#sliceStarted = performance.now();
  }
}
