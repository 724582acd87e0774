import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresReachable, postgresUrl, sandboxWorks } from '../../test/support/services.js';
import type { RuntimeCommand } from '../runtime/runtime-types.js';
import { lostRunWarning } from './lost-run-result.js';
import { createRemoteRuntime, type RemoteRuntime } from './remote-runtime.js';
import { startWorkerProcess, type WorkerProcess } from './testing/worker-process.js';
import { ledgerAnswerWarning } from './worker-runs.js';

/**
 * Two `skillbox worker` processes sharing a PostgreSQL run ledger (and, standing in for workspace
 * custody, one workspaces folder). A run on the first is cut off by kill -9; the same run id sent
 * to the second is reported lost (a script not safe to retry: it ran once) or run again (a
 * retry-safe one: it ran twice). The scripts count their starts in their workspace.
 */
describe.runIf(sandboxWorks && postgresReachable)('a sandbox worker killed mid-run', () => {
  const secret = randomBytes(32).toString('hex');
  const shared = mkdtempSync(join(tmpdir(), 'skillbox-failover-'));
  const names = { once: join(shared, 'name-once'), twice: join(shared, 'name-twice') };
  const tag = `${process.pid}-${Date.now().toString(36)}`;
  let first: WorkerProcess;
  let second: WorkerProcess;
  let toFirst: RemoteRuntime;
  let toSecond: RemoteRuntime;
  const args = ['--workspaces', join(shared, 'workspaces'), '--ledger', postgresUrl, '--run-lease-ms', '1000'];
  // Counts its starts; only the first start sleeps, so a second one finishes at once.
  const script = 'echo start >> count; [ "$(grep -c start count)" -ge 2 ] || sleep 30; echo end >> count';
  const run = (workspace: string, runId: string, retrySafe: boolean): RuntimeCommand => ({
    workspaceRoot: workspace,
    cwd: workspace,
    command: script,
    env: { PATH: '/usr/bin:/bin' },
    timeoutMs: 60_000,
    maxOutputBytes: 4096,
    runId,
    retrySafe,
  });
  const lines = async (runtime: RemoteRuntime, workspace: string): Promise<string[]> => {
    const files = runtime.files(workspace);
    if ((await files.inspect('count')) === undefined) return [];
    return (await files.read('count', 1000)).data.toString().split('\n').filter(Boolean);
  };

  beforeAll(async () => {
    first = await startWorkerProcess([...args, '--worker-id', `first-${tag}`], secret);
    second = await startWorkerProcess([...args, '--worker-id', `second-${tag}`], secret);
    toFirst = createRemoteRuntime({ url: first.url, secret });
    toSecond = createRemoteRuntime({ url: second.url, secret });
  });
  afterAll(async () => {
    await toFirst?.close();
    await toSecond?.close();
    await second?.stop();
    first?.child.kill('SIGKILL');
    rmSync(shared, { recursive: true, force: true });
  });

  it('reports the run lost (ran once), or runs a retry-safe one again (ran twice)', async () => {
    const onceId = `failover-once-${tag}`;
    const twiceId = `failover-twice-${tag}`;
    const cutOnce = toFirst.run(run(names.once, onceId, false));
    const cutTwice = toFirst.run(run(names.twice, twiceId, true));
    for (let tries = 0; tries < 200; tries += 1) {
      if ((await lines(toFirst, names.once)).length > 0 && (await lines(toFirst, names.twice)).length > 0) break;
      await sleep(50);
    }
    expect(await lines(toFirst, names.once)).toEqual(['start']);
    first.child.kill('SIGKILL');

    // The caller of the cut-off run gets a result, not a throw: lost, may have had effects.
    for (const cut of await Promise.all([cutOnce, cutTwice]))
      expect(cut).toMatchObject({ exitCode: -1, lost: true, warnings: expect.arrayContaining([lostRunWarning]) });

    // The same ids on the second worker: it waits out the first one's lease, then decides.
    const [once, twice] = await Promise.all([
      toSecond.run(run(names.once, onceId, false)),
      toSecond.run(run(names.twice, twiceId, true)),
    ]);
    expect(once).toMatchObject({ exitCode: -1, lost: true });
    expect(once.warnings).toEqual([lostRunWarning, ledgerAnswerWarning]);
    expect(twice).toMatchObject({ exitCode: 0 });
    expect(twice.warnings.join('\n')).toMatch(/run again \(attempt 2\)/);
    expect(twice.lost).toBeUndefined();

    // The first worker's sandbox died with it: nothing more is written by the cut-off runs.
    await sleep(500);
    expect(await lines(toSecond, names.once)).toEqual(['start']);
    expect(await lines(toSecond, names.twice)).toEqual(['start', 'start', 'end']);

    // Asked again, each id gets its recorded answer without running.
    const [onceAgain, twiceAgain] = await Promise.all([
      toSecond.run(run(names.once, onceId, false)),
      toSecond.run(run(names.twice, twiceId, true)),
    ]);
    expect(onceAgain).toMatchObject({ exitCode: -1, lost: true });
    expect(twiceAgain.warnings).toContain(ledgerAnswerWarning);
    expect(await lines(toSecond, names.twice)).toEqual(['start', 'start', 'end']);
  });
});
