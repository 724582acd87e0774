import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../config/config-error.js';
import { LOCAL_ISOLATION_WARNING, LocalRuntime } from './local-runtime.js';
import type { WorkspaceRuntime } from './runtime-types.js';
import { describeRuntimeConformance } from './testing/runtime-conformance.js';

describeRuntimeConformance('local', () => new LocalRuntime());

// A runtime written elsewhere may run commands only: without start and stopProcesses the suite skips
// the background-process cases instead of failing them.
describeRuntimeConformance('local, run only', (): WorkspaceRuntime => {
  const inner = new LocalRuntime();
  return {
    kind: 'run-only',
    isolated: false,
    guestPath: (hostPath, workspaceRoot) => inner.guestPath(hostPath, workspaceRoot),
    run: (command) => inner.run(command),
    files: (workspaceRoot) => inner.files(workspaceRoot),
  };
});

describe('LocalRuntime', () => {
  const workspace = mkdtempSync(join(tmpdir(), 'skillbox-local-'));
  afterAll(() => rmSync(workspace, { recursive: true, force: true }));
  const command = { workspaceRoot: workspace, cwd: workspace, env: {}, timeoutMs: 5_000, maxOutputBytes: 1024 };

  it('says on every result that nothing is isolated', async () => {
    const runtime = new LocalRuntime();
    expect(runtime.isolated).toBe(false);
    expect((await runtime.run({ ...command, command: 'true' })).warnings[0]).toBe(LOCAL_ISOLATION_WARNING);
    const custom = new LocalRuntime({ isolationWarning: 'custom warning' });
    expect((await custom.run({ ...command, command: 'exit 1' })).warnings).toEqual(['custom warning']);
  });

  it('shows host paths as they are', () => {
    expect(new LocalRuntime().guestPath(join(workspace, 'a'), workspace)).toBe(join(workspace, 'a'));
  });

  it('does not read bash startup files even though stdin is a socket', async () => {
    const home = mkdtempSync(join(tmpdir(), 'skillbox-home-'));
    try {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(join(home, '.bashrc'), 'echo RC-SOURCED\n');
      writeFileSync(join(home, '.bash_profile'), 'echo PROFILE-SOURCED\n');
      const result = await new LocalRuntime().run({ ...command, env: { HOME: home }, command: 'echo body', stdin: '' });
      expect(result.stdout).toBe('body\n');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('refuses a shell that does not exist at construction', () => {
    expect(() => new LocalRuntime({ shell: 'skillbox-no-such-shell' })).toThrow(SkillboxConfigError);
    expect(() => new LocalRuntime({ shell: 'skillbox-no-such-shell' })).toThrow(
      /^LocalRuntime: option "shell" names no executable: "skillbox-no-such-shell" is not on PATH/,
    );
  });
});
