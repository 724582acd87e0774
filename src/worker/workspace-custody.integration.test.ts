import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../test/support/services.js';
import { createRuntime } from '../runtime/create-runtime.js';
import type { RuntimeCommand } from '../runtime/runtime-types.js';
import { WorkspaceHeldError } from './custody/custody-errors.js';
import { createRemoteRuntime } from './remote-runtime.js';
import { createSandboxWorker } from './sandbox-worker.js';
import type { WorkspaceCustody } from './workspace-custody.js';

/**
 * A small custody kept in this process: one holder per workspace, and a "snapshot" that is a copy
 * of the folder in a store folder. Enough to see when a worker calls the hook and that a second
 * worker continues where the first left off; the real one is PostgreSQL (src/worker/custody/).
 */
function memoryCustody(store: string, holders: Map<string, string>, worker: string, calls: string[]): WorkspaceCustody {
  const key = (name: string) => Buffer.from(name).toString('hex');
  return {
    async acquire(name, folder) {
      calls.push(`${worker} acquire ${name} ${(await readdir(folder)).length}`);
      const holder = holders.get(name);
      if (holder !== undefined && holder !== worker)
        throw Object.assign(new Error(`workspace ${name} is held by ${holder}`), { code: 'WORKSPACE_HELD' });
      holders.set(name, worker);
      await cp(join(store, key(name)), folder, { recursive: true }).catch(() => undefined);
    },
    async changed(name, folder) {
      calls.push(`${worker} changed ${name}`);
      await rm(join(store, key(name)), { recursive: true, force: true });
      await cp(folder, join(store, key(name)), { recursive: true });
    },
    async release(name) {
      calls.push(`${worker} release ${name}`);
      holders.delete(name);
      await rm(join(store, key(name)), { recursive: true, force: true });
    },
    async close() {
      calls.push(`${worker} close`);
    },
  };
}

/** Leases with expiry times, as the PostgreSQL custody keeps them (a holder that stops renewing loses its lease when it expires). */
function leasedCustody(leases: Map<string, { holder: string; expiresAt: number }>, worker: string): WorkspaceCustody {
  return {
    async acquire(name) {
      const lease = leases.get(name);
      if (lease !== undefined && lease.holder !== worker && lease.expiresAt > Date.now())
        throw new WorkspaceHeldError(name, lease.holder, new Date(lease.expiresAt));
      leases.set(name, { holder: worker, expiresAt: Date.now() + 60_000 });
    },
    async changed() {},
    async release(name) {
      leases.delete(name);
    },
    async close() {},
  };
}

describe.runIf(sandboxWorks)('sandbox workers and workspace custody', () => {
  const secret = randomBytes(32).toString('hex');
  let temporary: string;
  const name = '/agents/one/workspaces/session-1';
  const command = (text: string): RuntimeCommand => ({
    workspaceRoot: name,
    cwd: name,
    command: text,
    env: { PATH: '/usr/bin:/bin' },
    timeoutMs: 10_000,
    maxOutputBytes: 1024,
  });

  beforeAll(async () => {
    temporary = await mkdtemp(join(tmpdir(), 'skillbox-custody-'));
  });
  afterAll(async () => {
    await rm(temporary, { recursive: true, force: true });
  });

  it('acquires before the first operation, reports changes, and a second worker continues from them', async () => {
    const holders = new Map<string, string>();
    const calls: string[] = [];
    const store = join(temporary, 'store');
    const first = await createSandboxWorker({
      runtime: createRuntime({ kind: 'sandbox' }),
      secret,
      custody: memoryCustody(store, holders, 'first', calls),
    });
    const toFirst = createRemoteRuntime({ url: first.url, secret });
    await toFirst.files(name).put('note.txt', { kind: 'file', mode: 0o644, content: { data: Buffer.from('hello') } });
    expect((await toFirst.files(name).read('note.txt', 100)).data.toString()).toBe('hello');
    const wrote = await toFirst.run(command('echo " world" >> note.txt'));
    expect(wrote.exitCode).toBe(0);
    expect(calls).toEqual([`first acquire ${name} 0`, `first changed ${name}`, `first changed ${name}`]);

    // Held by the first worker: the second is refused before anything runs.
    const second = await createSandboxWorker({
      runtime: createRuntime({ kind: 'sandbox' }),
      secret,
      custody: memoryCustody(store, holders, 'second', calls),
    });
    const toSecond = createRemoteRuntime({ url: second.url, secret });
    await expect(toSecond.run(command('echo again >> note.txt'))).rejects.toMatchObject({ code: 'WORKSPACE_HELD' });

    // The first worker goes away and its lease with it: the second restores the last change.
    await toFirst.close();
    await first.close();
    holders.delete(name);
    const read = await toSecond.run(command('cat note.txt'));
    expect(read.stdout).toBe('hello world\n');
    expect(calls.filter((call) => call.startsWith('second acquire'))).toEqual([
      `second acquire ${name} 0`,
      `second acquire ${name} 0`,
    ]);

    await toSecond.files(name).remove('');
    expect(calls.at(-1)).toBe(`second release ${name}`);
    expect(holders.has(name)).toBe(false);
    await toSecond.close();
    await second.close();
    expect(calls).toContain('second close');
  });

  it('waits out the lease of a holder that stopped renewing (it died), but refuses a workspace whose holder renews', async () => {
    const leases = new Map<string, { holder: string; expiresAt: number }>();
    const worker = await createSandboxWorker({
      runtime: createRuntime({ kind: 'sandbox' }),
      secret,
      custody: leasedCustody(leases, 'taker'),
    });
    const runtime = createRemoteRuntime({ url: worker.url, secret });
    try {
      // Killed a moment ago: its lease runs out in 800 ms and nobody renews it.
      leases.set(name, { holder: 'killed', expiresAt: Date.now() + 800 });
      const taken = await runtime.run(command('echo taken over'));
      expect(taken).toMatchObject({ exitCode: 0, stdout: 'taken over\n' });
      expect(leases.get(name)?.holder).toBe('taker');

      // Alive: it renews before its lease runs out, so the workspace stays its own.
      const other = '/agents/one/workspaces/session-2';
      leases.set(other, { holder: 'alive', expiresAt: Date.now() + 300 });
      const renewal = setInterval(() => leases.set(other, { holder: 'alive', expiresAt: Date.now() + 300 }), 100);
      try {
        await expect(runtime.run({ ...command('echo no'), workspaceRoot: other, cwd: other })).rejects.toMatchObject({
          code: 'WORKSPACE_HELD',
        });
      } finally {
        clearInterval(renewal);
      }
      expect(leases.get(other)?.holder).toBe('alive');
    } finally {
      await runtime.close();
      await worker.close();
    }
  });

  it('without custody, keeps the workspace on the worker: no hook, the folder stays', async () => {
    const folder = join(temporary, 'own');
    const worker = await createSandboxWorker({
      runtime: createRuntime({ kind: 'sandbox' }),
      secret,
      workspacesFolder: folder,
    });
    const runtime = createRemoteRuntime({ url: worker.url, secret });
    await runtime.run(command('echo kept > kept.txt'));
    expect((await readdir(folder)).filter((entry) => entry !== '.host-build')).toHaveLength(1);
    await runtime.close();
    await worker.close();
    expect((await readdir(folder)).filter((entry) => entry !== '.host-build')).toHaveLength(1);
  });
});
