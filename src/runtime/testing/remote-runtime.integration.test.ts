import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../../test/support/services.js';
import { RuntimeCommandError } from '../errors.js';
import { type RemoteRuntime, startRemoteRuntime } from './remote-runtime.js';
import { describeRuntimeConformance } from './runtime-conformance.js';

// The worker runs its commands in the real sandbox, so these need bubblewrap like the sandbox's own tests.
describe.runIf(sandboxWorks)('remote runtime (worker process over loopback HTTP)', () => {
  describeRuntimeConformance('remote', startRemoteRuntime, (runtime) => (runtime as RemoteRuntime).close());

  describe('what stays on the worker', () => {
    let runtime: RemoteRuntime;
    const workspace = mkdtempSync(join(tmpdir(), 'skillbox-remote-name-'));
    beforeAll(async () => {
      runtime = await startRemoteRuntime();
    });
    afterAll(async () => {
      await runtime?.close();
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
