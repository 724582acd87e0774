import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../test/support/services.js';
import { createRuntime } from '../runtime/create-runtime.js';
import type { RuntimeCommand } from '../runtime/runtime-types.js';
import { lostRunWarning } from './lost-run-result.js';
import { createMemoryRunLedger } from './memory-run-ledger.js';
import { createRemoteRuntime } from './remote-runtime.js';
import { createSandboxWorker } from './sandbox-worker.js';

/**
 * A worker that stops with runs going kills them and reports them lost; it does not record them as
 * finished, so another worker on the same ledger reports the id lost too once the lease is out.
 */
describe.runIf(sandboxWorks)('a sandbox worker stopping mid-run', () => {
  const secret = randomBytes(32).toString('hex');
  const shared = mkdtempSync(join(tmpdir(), 'skillbox-shutdown-'));
  afterAll(() => rmSync(shared, { recursive: true, force: true }));

  it('kills the run, answers it lost, and leaves the id to expire as lost', async () => {
    const ledger = createMemoryRunLedger();
    const workspacesFolder = join(shared, 'workspaces');
    const workspace = join(shared, 'name');
    const options = { runtime: createRuntime({ kind: 'sandbox' }), secret, ledger, workspacesFolder, runLeaseMs: 300 };
    const command: RuntimeCommand = {
      workspaceRoot: workspace,
      cwd: workspace,
      command: 'echo start >> count; sleep 30; echo end >> count',
      env: { PATH: '/usr/bin:/bin' },
      timeoutMs: 60_000,
      maxOutputBytes: 1024,
      runId: `shutdown-${process.pid}`,
    };
    const first = await createSandboxWorker({ ...options, workerId: 'first' });
    const toFirst = createRemoteRuntime({ url: first.url, secret });
    const cut = toFirst.run(command);
    for (let tries = 0; tries < 100; tries += 1) {
      // Written, not only created: the shell makes the file before `echo` writes into it.
      if (((await toFirst.files(workspace).inspect('count'))?.sizeBytes ?? 0) > 0) break;
      await sleep(50);
    }
    await first.close();
    expect(await cut).toMatchObject({ exitCode: -1, lost: true, warnings: expect.arrayContaining([lostRunWarning]) });
    await toFirst.close();

    const second = await createSandboxWorker({ ...options, workerId: 'second' });
    const toSecond = createRemoteRuntime({ url: second.url, secret });
    try {
      expect(await toSecond.run(command)).toMatchObject({ exitCode: -1, lost: true });
      expect((await toSecond.files(workspace).read('count', 100)).data.toString()).toBe('start\n');
    } finally {
      await toSecond.close();
      await second.close();
    }
  });
});
