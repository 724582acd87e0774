// Attack (concurrency): a SKILL.md rewritten in place while get() reads it for the body. The
// signature (size, times, inode) is taken before the read, so bytes read while a write lands can
// pass for the version that was listed: a body half of one version and half of the next, handed
// out under the listed description. get() must give one version, whole, or an error.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsSkillRepository } from '../../src/repository/fs-skill-repository.js';

const bodyBytes = 2 * 1024 * 1024;
const trials = 80;
const version = (letter: string): Buffer =>
  Buffer.from(`---\nname: notes\ndescription: Version ${letter}\n---\n${letter.repeat(bodyBytes)}\n`);

// Waits for a go (slot 0 = 1), spins for slot 1 microseconds, rewrites the file in place, reports done (0).
const writerSource = `
  const { workerData } = require('node:worker_threads');
  const { openSync, writeSync, closeSync } = require('node:fs');
  const { signal, file } = workerData;
  const next = Buffer.from(workerData.next);
  for (;;) {
    Atomics.wait(signal, 0, 0);
    if (Atomics.load(signal, 0) === 2) break;
    const until = process.hrtime.bigint() + BigInt(Atomics.load(signal, 1)) * 1000n;
    while (process.hrtime.bigint() < until) {}
    const descriptor = openSync(file, 'r+');
    writeSync(descriptor, next, 0, next.length, 0);
    closeSync(descriptor);
    Atomics.store(signal, 0, 0);
  }
`;

describe('get() while the SKILL.md is rewritten in place', () => {
  let base: string;
  let file: string;
  let worker: Worker;
  const signal = new Int32Array(new SharedArrayBuffer(8));

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'skillbox-torn-read-'));
    await mkdir(join(base, 'notes'));
    file = join(base, 'notes', 'SKILL.md');
    worker = new Worker(writerSource, { eval: true, workerData: { signal, file, next: version('B') } });
  });

  afterAll(async () => {
    Atomics.store(signal, 0, 2);
    Atomics.notify(signal, 0);
    await worker.terminate();
    await rm(base, { recursive: true, force: true });
  });

  it("gives the body of one version whole, under that version's description, or an error", async () => {
    const first = version('A');
    const outcomes = { whole: 0, errors: 0, torn: [] as string[] };
    for (let trial = 0; trial < trials; trial += 1) {
      await writeFile(file, first);
      const repository = await FsSkillRepository.open({ roots: [base] });
      await repository.list();
      Atomics.store(signal, 1, Math.floor(Math.random() * 2000));
      Atomics.store(signal, 0, 1);
      Atomics.notify(signal, 0);
      try {
        const skill = await repository.get('notes');
        const letter = skill.description.slice(-1);
        const other = letter === 'A' ? 'B' : 'A';
        if (skill.body.includes(other)) outcomes.torn.push(`described as ${letter}, body holds ${other}`);
        else outcomes.whole += 1;
      } catch {
        outcomes.errors += 1;
      }
      while (Atomics.load(signal, 0) !== 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(outcomes.torn).toEqual([]);
    expect(outcomes.whole).toBeGreaterThan(trials / 2);
  });
});
