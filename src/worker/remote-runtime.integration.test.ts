import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../test/support/services.js';
import { RuntimeCommandError } from '../runtime/errors.js';
import { describeRuntimeConformance } from '../runtime/testing/runtime-conformance.js';
import { createRemoteRuntime, type RemoteRuntime } from './remote-runtime.js';
import { startWorkerProcess, type WorkerProcess } from './testing/worker-process.js';

// The worker runs its commands in the real sandbox, so these need bubblewrap like the sandbox's own tests.
describe.runIf(sandboxWorks)('remote runtime against a skillbox worker process', () => {
  let worker: WorkerProcess | undefined;
  describeRuntimeConformance(
    'remote',
    async () => {
      worker = await startWorkerProcess();
      return createRemoteRuntime({ url: worker.url, secret: worker.secret });
    },
    async (runtime) => {
      await (runtime as RemoteRuntime).close();
      await worker?.stop();
    },
  );

  describe('what stays on the worker', () => {
    let process: WorkerProcess;
    let runtime: RemoteRuntime;
    const workspace = mkdtempSync(join(tmpdir(), 'skillbox-remote-name-'));
    beforeAll(async () => {
      process = await startWorkerProcess();
      runtime = createRemoteRuntime({ url: process.url, secret: process.secret });
    });
    afterAll(async () => {
      await runtime?.close();
      await process?.stop();
      rmSync(workspace, { recursive: true, force: true });
    });

    it('keeps the workspace off the host: the host folder named stays empty', async () => {
      const files = runtime.files(workspace);
      await files.put('in.txt', { kind: 'file', mode: 0o644, content: { data: Buffer.from('sent') } });
      const result = await runtime.run({
        workspaceRoot: workspace,
        cwd: workspace,
        command: 'cat in.txt > out.txt; pwd',
        env: { PATH: '/usr/bin:/bin' },
        timeoutMs: 10_000,
        maxOutputBytes: 1024,
      });
      expect(result).toMatchObject({ stdout: '/workspace\n', exitCode: 0 });
      expect((await files.read('out.txt', 100)).data.toString()).toBe('sent');
      expect(readdirSync(workspace)).toEqual([]);
    });

    it('carries bytes as they are, every value of a byte both ways', async () => {
      const files = runtime.files(workspace);
      const all = Buffer.from(Array.from({ length: 256 * 4 }, (_, index) => index % 256));
      await files.put('bytes.bin', { kind: 'file', mode: 0o644, content: { data: all } });
      const result = await runtime.run({
        workspaceRoot: workspace,
        cwd: workspace,
        command: 'sha256sum bytes.bin | cut -c1-64; cp bytes.bin back.bin',
        env: { PATH: '/usr/bin:/bin' },
        timeoutMs: 10_000,
        maxOutputBytes: 1024,
      });
      const { createHash } = await import('node:crypto');
      expect(result.stdout.trim()).toBe(createHash('sha256').update(all).digest('hex'));
      expect((await files.read('back.bin', 10_000)).data.equals(all)).toBe(true);
    });

    it('refuses host paths it cannot show, by field', async () => {
      await expect(
        runtime.run({
          workspaceRoot: workspace,
          cwd: workspace,
          command: 'true',
          env: {},
          timeoutMs: 1_000,
          maxOutputBytes: 1024,
          readOnlyPaths: ['/usr/share'],
        }),
      ).rejects.toMatchObject({ constructor: RuntimeCommandError, field: 'readOnlyPaths' });
    });
  });
});
