import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../test/support/services.js';
import { createRuntime } from '../runtime/create-runtime.js';
import type { RuntimeCommand } from '../runtime/runtime-types.js';
import { createRemoteRuntime, type RemoteRuntime } from './remote-runtime.js';
import { createSandboxWorker, type SandboxWorker } from './sandbox-worker.js';
import { WorkerBusyError } from './worker-errors.js';

/** A worker with 2 run slots and 1 place in the queue: what happens to the 3rd and the 4th run. */
describe.runIf(sandboxWorks)('the bounded run queue of a sandbox worker', () => {
  const secret = randomBytes(32).toString('hex');
  const workspace = mkdtempSync(join(tmpdir(), 'skillbox-queue-'));
  let worker: SandboxWorker;
  let runtime: RemoteRuntime;
  const command = (text: string): RuntimeCommand => ({
    workspaceRoot: workspace,
    cwd: workspace,
    command: text,
    env: { PATH: '/usr/bin:/bin' },
    timeoutMs: 30_000,
    maxOutputBytes: 1024,
  });
  const marks = async (): Promise<string[]> => {
    const files = runtime.files(workspace);
    if ((await files.inspect('marks')) === undefined) return [];
    return (await files.read('marks', 10_000)).data.toString().split('\n').filter(Boolean).sort();
  };

  beforeAll(async () => {
    worker = await createSandboxWorker({
      runtime: createRuntime({ kind: 'sandbox' }),
      secret,
      maxConcurrentRuns: 2,
      maxQueuedRuns: 1,
      queueWaitMs: 1_000,
    });
    runtime = createRemoteRuntime({ url: worker.url, secret });
  });
  afterAll(async () => {
    await runtime?.close();
    await worker?.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('refuses the run past running + queued at once, and the queued one when no slot frees within queueWaitMs', async () => {
    const events: string[] = [];
    const track = (name: string, promise: Promise<unknown>) =>
      promise.then(
        () => events.push(`${name} ended`),
        (error: unknown) => {
          events.push(`${name} refused ${(error as { code?: string }).code}`);
          return error;
        },
      );
    // Two long runs fill the slots; each marks when it starts.
    const long = [1, 2].map((index) =>
      track(`long${index}`, runtime.run(command(`echo long${index} >> marks; sleep 4`))),
    );
    for (let tries = 0; tries < 100 && (await marks()).length < 2; tries += 1)
      await new Promise((r) => setTimeout(r, 50));
    const queued = runtime.run(command('echo queued >> marks'));
    const queuedTracked = track('queued', queued);
    await new Promise((r) => setTimeout(r, 100));
    const over = runtime.run(command('echo over >> marks'));
    await expect(over).rejects.toMatchObject({ code: 'WORKER_BUSY', constructor: WorkerBusyError });
    await expect(over).rejects.toThrow(/maxQueuedRuns/);
    const refusedQueued = (await queuedTracked) as WorkerBusyError;
    expect(refusedQueued).toMatchObject({ code: 'WORKER_BUSY', message: expect.stringContaining('queueWaitMs') });
    expect(refusedQueued.retryAfterMs).toBeGreaterThan(0);
    // The queued run gave up while both long runs were still running: it did not wait for them.
    expect(events[0]).toBe('queued refused WORKER_BUSY');
    await Promise.all(long);
    expect(await marks()).toEqual(['long1', 'long2']);
  });

  it('gives a queued run the slot a finished run frees', async () => {
    await runtime.files(workspace).remove('marks');
    const runs = ['a', 'b', 'c'].map((name) => runtime.run(command(`echo ${name} >> marks; sleep 0.3`)));
    const results = await Promise.all(runs);
    expect(results.map((result) => result.exitCode)).toEqual([0, 0, 0]);
    expect(await marks()).toEqual(['a', 'b', 'c']);
  });
});
