import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeCommand } from '../../src/runtime/runtime-types.js';
import { sandboxWorks } from '../support/services.js';
import { startWorkerFixture, type WorkerFixture } from './worker-fixture.js';

// An agent side (or a model steering it) that names workspaces, paths and commands: none of them
// may reach outside the worker's own workspaces folder, and the worker's host leaks nothing in.
describe.runIf(sandboxWorks)('sandbox worker: workspaces stay in its folder', () => {
  let fixture: WorkerFixture;
  const hostOnly = `worker-host-only-${process.pid}`;
  const command = (workspace: string, text: string, cwd = workspace): RuntimeCommand => ({
    workspaceRoot: workspace,
    cwd,
    command: text,
    env: { PATH: '/usr/bin:/bin' },
    timeoutMs: 10_000,
    maxOutputBytes: 65_536,
  });

  beforeAll(async () => {
    process.env.SKILLBOX_WORKER_HOST_ONLY = hostOnly;
    fixture = await startWorkerFixture();
  });
  afterAll(async () => {
    delete process.env.SKILLBOX_WORKER_HOST_ONLY;
    await fixture?.dispose();
  });

  it('keeps a workspace whose name climbs inside the workspaces folder', async () => {
    const parent = dirname(fixture.workspacesFolder);
    const before = readdirSync(parent).sort();
    for (const name of ['/../../../tmp', '../../escape', `${fixture.workspacesFolder}/..`, '/', '..']) {
      await fixture.runtime
        .files(name)
        .put('climbed.txt', { kind: 'file', mode: 0o644, content: { data: Buffer.from(name) } });
      const result = await fixture.runtime.run(command(name, 'echo ran > ran.txt; pwd'));
      expect(result.stdout).toBe('/workspace\n');
    }
    expect(readdirSync(parent).sort()).toEqual(before);
    expect(existsSync('/tmp/climbed.txt')).toBe(false);
    expect(existsSync(join(parent, 'climbed.txt'))).toBe(false);
    // Each name got a folder of its own, inside the workspaces folder.
    // Beside them only the build area where trees are assembled before they are moved in (host-build-area.ts).
    const folders = readdirSync(fixture.workspacesFolder).filter((entry) => entry !== '.host-build');
    expect(folders.length).toBeGreaterThanOrEqual(5);
    for (const folder of folders) expect(folder).toMatch(/^[0-9a-f]{32}$/);
  });

  it('refuses file paths and working folders that climb out of the workspace', async () => {
    const files = fixture.runtime.files(fixture.workspace);
    await expect(files.read('../../../../etc/passwd', 100)).rejects.toMatchObject({ code: 'WORKSPACE_PATH_REFUSED' });
    await expect(
      files.put('../outside.txt', { kind: 'file', mode: 0o644, content: { data: Buffer.from('x') } }),
    ).rejects.toMatchObject({ code: 'WORKSPACE_PATH_REFUSED' });
    await expect(files.remove('../')).rejects.toMatchObject({ code: 'WORKSPACE_PATH_REFUSED' });
    await expect(
      fixture.runtime.run(command(fixture.workspace, 'touch climbed', join(fixture.workspace, '..', '..'))),
    ).rejects.toMatchObject({ code: 'RUNTIME_COMMAND_INVALID', field: 'cwd' });
    expect(existsSync(join(dirname(fixture.workspacesFolder), 'outside.txt'))).toBe(false);
  });

  it('does not follow links a command planted when the agent side reads or writes files', async () => {
    const files = fixture.runtime.files(fixture.workspace);
    const planted = await fixture.runtime.run(
      command(
        fixture.workspace,
        'ln -s /etc/passwd leak; ln -s .. up; ln -s / root; mkdir -p real; ln -s /etc real/etc',
      ),
    );
    expect(planted.exitCode).toBe(0);
    await expect(files.read('leak', 10_000)).rejects.toBeDefined();
    await expect(files.read('root/etc/passwd', 10_000)).rejects.toBeDefined();
    await expect(files.read('real/etc/hostname', 10_000)).rejects.toBeDefined();
    await expect(
      files.put('up/planted.txt', { kind: 'file', mode: 0o644, content: { data: Buffer.from('x') } }),
    ).rejects.toMatchObject({ code: 'WORKSPACE_PATH_REFUSED' });
    await expect(
      files.put('root/tmp/planted.txt', { kind: 'file', mode: 0o644, content: { data: Buffer.from('x') } }),
    ).rejects.toMatchObject({ code: 'WORKSPACE_PATH_REFUSED' });
    expect(existsSync('/tmp/planted.txt')).toBe(false);
    expect(readdirSync(fixture.workspacesFolder).includes('planted.txt')).toBe(false);
    // Replacing the link itself is fine: the destination is replaced, never written through.
    await files.put('leak', { kind: 'file', mode: 0o644, content: { data: Buffer.from('mine') } });
    expect((await files.read('leak', 100)).data.toString()).toBe('mine');
  });

  it("gives the command only the environment the agent side sent: nothing of the worker's host, not its secret", async () => {
    const result = await fixture.runtime.run(
      command(fixture.workspace, 'env; cat /proc/1/environ 2>/dev/null | tr "\\0" "\\n"'),
    );
    expect(result.stdout).not.toContain(hostOnly);
    expect(result.stdout).not.toContain(fixture.secret);
    expect(result.stdout).toContain('PATH=/usr/bin:/bin');
  });
});
