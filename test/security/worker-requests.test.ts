import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeCommand } from '../../src/runtime/runtime-types.js';
import { createRemoteRuntime } from '../../src/worker/remote-runtime.js';
import { sandboxWorks } from '../support/services.js';
import { sendRaw, startCapture, startWorkerFixture, type WorkerFixture } from './worker-fixture.js';

// Someone on the network between an agent worker and a sandbox worker, or anyone who can reach the
// worker's port: every request they forge, replay or alter must run nothing.
describe.runIf(sandboxWorks)('sandbox worker: requests from someone without the secret', () => {
  let fixture: WorkerFixture;
  const command = (workspace: string, text: string): RuntimeCommand => ({
    workspaceRoot: workspace,
    cwd: workspace,
    command: text,
    env: { PATH: '/usr/bin:/bin' },
    timeoutMs: 10_000,
    maxOutputBytes: 4096,
  });
  const lines = async (name: string): Promise<string[]> => {
    const info = await fixture.runtime.files(fixture.workspace).inspect(name);
    if (info === undefined) return [];
    const { data } = await fixture.runtime.files(fixture.workspace).read(name, 10_000);
    return data.toString('utf8').split('\n').filter(Boolean);
  };

  beforeAll(async () => {
    fixture = await startWorkerFixture({ signatureWindowMs: 1_500, maxRequestBytes: 1024 * 1024 });
  });
  afterAll(async () => {
    await fixture?.dispose();
  });

  it('answers an unsigned request with 401 "unauthenticated" and nothing more, whatever the path', async () => {
    for (const path of ['/v1/run', '/v1/files', '/', '/v1/nothing']) {
      const answer = await sendRaw(fixture.worker.url, {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/octet-stream' },
        body: Buffer.from('{}'),
      });
      expect({ path, status: answer.status, body: answer.body.toString() }).toEqual({
        path,
        status: 401,
        body: 'unauthenticated',
      });
    }
  });

  it('refuses requests signed with another secret, and nothing runs', async () => {
    const stranger = createRemoteRuntime({ url: fixture.worker.url, secret: randomBytes(32).toString('hex') });
    try {
      await expect(stranger.run(command(fixture.workspace, 'echo stranger >> marks'))).rejects.toMatchObject({
        code: 'WORKER_UNAUTHENTICATED',
      });
      await expect(stranger.files(fixture.workspace).read('marks', 100)).rejects.toMatchObject({
        code: 'WORKER_UNAUTHENTICATED',
      });
    } finally {
      await stranger.close();
    }
    expect(await lines('marks')).toEqual([]);
  });

  it('refuses a captured request sent again: the run happened once', async () => {
    const capture = await startCapture(fixture.worker.url, 'forward');
    const watched = createRemoteRuntime({ url: capture.url, secret: fixture.secret });
    try {
      const result = await watched.run(command(fixture.workspace, 'echo ran >> replayed'));
      expect(result.exitCode).toBe(0);
      const original = capture.captured.find((seen) => seen.path.endsWith('/run'));
      expect(original).toBeDefined();
      const replay = await sendRaw(fixture.worker.url, original!);
      expect(replay.status).toBe(401);
      expect(await lines('replayed')).toEqual(['ran']);
    } finally {
      await watched.close();
      await capture.close();
    }
  });

  it('refuses a captured request whose body was changed on the way', async () => {
    const capture = await startCapture(fixture.worker.url, 'hold');
    const watched = createRemoteRuntime({ url: capture.url, secret: fixture.secret });
    try {
      await expect(watched.run(command(fixture.workspace, 'echo safe >> tampered'))).rejects.toBeDefined();
      const held = capture.captured.find((seen) => seen.path.endsWith('/run'))!;
      const at = held.body.indexOf('echo safe');
      expect(at).toBeGreaterThan(0);
      const changed = Buffer.from(held.body);
      changed.write('echo evil', at, 'utf8');
      const answer = await sendRaw(fixture.worker.url, { ...held, body: changed });
      expect(answer.status).toBe(401);
      expect(await lines('tampered')).toEqual([]);
    } finally {
      await watched.close();
      await capture.close();
    }
  });

  it('refuses a captured request, never delivered, once its timestamp has left the window', async () => {
    const capture = await startCapture(fixture.worker.url, 'hold');
    const watched = createRemoteRuntime({ url: capture.url, secret: fixture.secret });
    try {
      await expect(watched.run(command(fixture.workspace, 'echo late >> stale'))).rejects.toBeDefined();
      const held = capture.captured.find((seen) => seen.path.endsWith('/run'))!;
      await sleep(2_000);
      const answer = await sendRaw(fixture.worker.url, held);
      expect(answer.status).toBe(401);
      expect(await lines('stale')).toEqual([]);
    } finally {
      await watched.close();
      await capture.close();
    }
  });

  it('refuses a body over maxRequestBytes, naming the cap, and places nothing', async () => {
    const big = Buffer.alloc(2 * 1024 * 1024, 7);
    await expect(
      fixture.runtime.files(fixture.workspace).put('big.bin', { kind: 'file', mode: 0o644, content: { data: big } }),
    ).rejects.toMatchObject({ code: 'WORKER_MESSAGE_TOO_LARGE', message: expect.stringContaining('maxRequestBytes') });
    expect(await fixture.runtime.files(fixture.workspace).inspect('big.bin')).toBeUndefined();
    // The agent side's own cap refuses before sending.
    const capped = createRemoteRuntime({ url: fixture.worker.url, secret: fixture.secret, maxRequestBytes: 1000 });
    try {
      await expect(
        capped.files(fixture.workspace).put('big.bin', { kind: 'file', mode: 0o644, content: { data: big } }),
      ).rejects.toMatchObject({ code: 'WORKER_MESSAGE_TOO_LARGE', limit: 'maxRequestBytes' });
    } finally {
      await capped.close();
    }
  });

  it('does not read an unsigned upload: a huge declared body gets its 401 at once', async () => {
    const answer = await sendRaw(fixture.worker.url, {
      method: 'POST',
      path: '/v1/files',
      headers: {},
      body: Buffer.alloc(4 * 1024 * 1024),
    });
    expect(answer.status).toBe(401);
  });
});
