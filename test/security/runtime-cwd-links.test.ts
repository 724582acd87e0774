import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../support/services.js';
import { sandboxFixture } from './runtime-fixture.js';

// The fields of a command are checked above the runtime (validateRuntimeCommand); where its cwd
// leads is checked by the sandbox itself, when the command starts. A command of the workspace (a
// background one, in the gap between the workspace resolving the cwd and the start) can put a link
// to a host folder where the cwd was: the sandbox must refuse to start there, never bind the host
// folder as the command's working folder. The attack calls the runtime directly, as a caller that
// skipped the workspace layer would.
describe.runIf(sandboxWorks)('sandbox runtime: a cwd a command turned into a link out', () => {
  const fixture = sandboxFixture();
  const outside = mkdtempSync(join(tmpdir(), 'skillbox-cwd-target-'));
  afterAll(() => {
    fixture.dispose();
    rmSync(outside, { recursive: true, force: true });
  });

  it('refuses a run and a background start whose cwd leads out through a link, and writes nothing there', async () => {
    const planted = await fixture.run(`mkdir -p deep && ln -s ${outside} deep/work && ln -s / up`);
    expect(planted.exitCode).toBe(0);
    const write = 'echo escaped > escaped.txt';
    for (const cwd of [join(fixture.workspace, 'deep/work'), join(fixture.workspace, 'up', outside.slice(1))]) {
      await expect(fixture.run(write, { cwd })).rejects.toMatchObject({
        code: 'RUNTIME_COMMAND_INVALID',
        field: 'cwd',
      });
      await expect(
        fixture.runtime.start({
          workspaceRoot: fixture.workspace,
          cwd,
          env: { PATH: '/usr/bin:/bin' },
          timeoutMs: 5_000,
          maxOutputBytes: 1024,
          command: write,
        }),
      ).rejects.toMatchObject({ code: 'RUNTIME_COMMAND_INVALID', field: 'cwd' });
    }
    expect(readdirSync(outside)).toEqual([]);
  });
});
