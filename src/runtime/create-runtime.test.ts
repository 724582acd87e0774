import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../test/support/services.js';
import { SkillboxConfigError } from '../config/config-error.js';
import { createRuntime } from './create-runtime.js';
import { SandboxUnavailableError } from './errors.js';
import { LocalRuntime } from './local-runtime.js';
import { SandboxRuntime } from './sandbox-runtime.js';
import { detectSandboxSupport } from './sandbox-support.js';

describe('createRuntime', () => {
  const workspace = mkdtempSync(join(tmpdir(), 'skillbox-create-runtime-'));
  afterAll(() => rmSync(workspace, { recursive: true, force: true }));
  const command = {
    workspaceRoot: workspace,
    cwd: workspace,
    env: {},
    timeoutMs: 5_000,
    maxOutputBytes: 1024,
    command: 'echo ran',
  };

  it('gives the local runtime when asked', () => {
    expect(createRuntime({ kind: 'local' })).toBeInstanceOf(LocalRuntime);
  });

  it.runIf(sandboxWorks)('picks the sandbox for auto where bubblewrap works (this host: CI installs it)', () => {
    expect(detectSandboxSupport()).toMatchObject({ available: true });
    expect(createRuntime()).toBeInstanceOf(SandboxRuntime);
    expect(createRuntime({ kind: 'sandbox' }).isolated).toBe(true);
  });

  it('throws a SandboxUnavailableError for an explicit sandbox that cannot work, naming the fix', () => {
    expect(() => createRuntime({ kind: 'sandbox', bubblewrapPath: '/nonexistent/bwrap' })).toThrow(
      SandboxUnavailableError,
    );
    try {
      createRuntime({ kind: 'sandbox', bubblewrapPath: '/nonexistent/bwrap' });
    } catch (error) {
      expect((error as SandboxUnavailableError).code).toBe('SANDBOX_UNAVAILABLE');
      expect((error as Error).message).toMatch(/nonexistent\/bwrap.*apt-get install bubblewrap/s);
    }
  });

  it('fails closed for auto where the sandbox cannot work: an error naming what is missing and both ways out', () => {
    // `false` is an executable that cannot make a sandbox: the probe must catch it, not just the missing file.
    for (const bubblewrapPath of ['/nonexistent/bwrap', '/bin/false']) {
      let caught: unknown;
      try {
        createRuntime({ bubblewrapPath });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(SandboxUnavailableError);
      expect((caught as SandboxUnavailableError).reason).toContain(bubblewrapPath);
      expect((caught as Error).message).toContain('apt-get install bubblewrap');
      expect((caught as Error).message).toContain("createRuntime({ kind: 'local' })");
    }
  });

  it('falls back to local for auto with hostFallback, with a loud warning on every result saying why and how to fix it', async () => {
    for (const bubblewrapPath of ['/nonexistent/bwrap', '/bin/false']) {
      const runtime = createRuntime({ kind: 'auto', bubblewrapPath, hostFallback: true });
      expect(runtime).toBeInstanceOf(LocalRuntime);
      expect(runtime.isolated).toBe(false);
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const result = await runtime.run(command);
        expect(result.stdout).toBe('ran\n');
        expect(result.warnings[0]).toMatch(
          /^NOT ISOLATED: the sandbox is unavailable \(.+\).*apt-get install bubblewrap/,
        );
        expect(result.warnings[0]).toContain(bubblewrapPath);
      }
    }
  });

  it('refuses an unknown kind and bad limits at construction', () => {
    expect(() => createRuntime({ kind: 'docker' as never })).toThrow(SkillboxConfigError);
    expect(() => createRuntime({ kind: 'docker' as never })).toThrow(
      'createRuntime: option "kind" must be one of "auto", "sandbox", "local", "container"; got "docker"',
    );
    expect(() => createRuntime({ kind: 'sandbox', maxMemoryBytes: -1 })).toThrow(
      'createRuntime: option "maxMemoryBytes" must be a positive integer or null; got -1',
    );
  });

  it('probes once per bubblewrap path', () => {
    expect(detectSandboxSupport({ bubblewrapPath: '/bin/false' })).toBe(
      detectSandboxSupport({ bubblewrapPath: '/bin/false' }),
    );
    expect(detectSandboxSupport({ bubblewrapPath: '/bin/false' })).toMatchObject({
      available: false,
      reason: expect.stringContaining('cannot create a sandbox'),
    });
  });
});
