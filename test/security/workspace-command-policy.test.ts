import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../support/services.js';
import { workspaceSecurityFixture } from './workspace-fixture.js';

// With an allow list, nothing the model can put in the workspace runs in place of an allowed program.
describe.runIf(sandboxWorks)('workspace security: the command allow list', () => {
  let fixture: Awaited<ReturnType<typeof workspaceSecurityFixture>>;
  beforeAll(async () => {
    fixture = await workspaceSecurityFixture({ allowedCommands: ['echo', 'chmod'] });
    // A skill (or an earlier command) can ship an `echo` of its own in bin/.
    await mkdir(path.join(fixture.skillDir, 'bin'));
    await writeFile(path.join(fixture.skillDir, 'bin', 'echo'), '#!/bin/sh\nprintf OWNED\n', { mode: 0o755 });
  });
  afterAll(async () => {
    await fixture.dispose();
  });

  it('runs the system program, not the skill bin/ copy that leads the usual PATH', async () => {
    const result = await fixture.run({ command: 'echo hi', output_files: [] });
    expect(result.stdout).toBe('hi\n');
  });

  it('refuses a PATH from the call', async () => {
    await expect(
      fixture.run({ command: 'echo hi', env: { PATH: '/workspace/skills/probe/bin:/usr/bin:/bin' } }),
    ).rejects.toThrow(/"PATH".*command restrictions are enabled/);
  });

  it('refuses a path into the workspace, absolute or relative, even named like an allowed program', async () => {
    await fixture.run({ command: 'echo staged', output_files: [] });
    for (const command of [
      '/workspace/skills/probe/bin/echo hi',
      'bin/echo hi',
      './bin/echo hi',
      '../../skills/probe/bin/echo hi',
    ]) {
      await expect(fixture.run({ command, output_files: [] }), command).rejects.toThrow(
        /not one of the allowed programs/,
      );
    }
    await expect(fixture.exec({ command: 'skills/probe/bin/echo hi', output_files: [] })).rejects.toThrow(
      /not one of the allowed programs/,
    );
  });

  it('ignores a PATH allowed from the host', async () => {
    const hosted = await workspaceSecurityFixture({
      allowedCommands: ['echo'],
      allowHostEnv: ['PATH'],
      hostEnv: { PATH: '/workspace/skills/probe/bin' },
    });
    try {
      await mkdir(path.join(hosted.skillDir, 'bin'));
      await writeFile(path.join(hosted.skillDir, 'bin', 'echo'), '#!/bin/sh\nprintf OWNED\n', { mode: 0o755 });
      expect((await hosted.run({ command: 'echo hi', output_files: [] })).stdout).toBe('hi\n');
    } finally {
      await hosted.dispose();
    }
  });
});
