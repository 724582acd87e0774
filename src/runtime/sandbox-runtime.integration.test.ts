import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../test/support/services.js';
import { SkillboxConfigError } from '../config/config-error.js';
import { RuntimeCommandError, SandboxUnavailableError } from './errors.js';
import { PRELUDE_CHOICE_VARIABLE } from './sandbox-prelude-program.js';
import { SandboxRuntime } from './sandbox-runtime.js';
import { describeRuntimeConformance } from './testing/runtime-conformance.js';

// Linux hosts must have a working bubblewrap (CI installs it): a missing sandbox fails here loudly.
describe.runIf(sandboxWorks)('sandbox runtime', () => {
  describeRuntimeConformance('sandbox', () => new SandboxRuntime());
  // The shell preludes stay the fall-back where the compiled one is not built: they must pass as well.
  describeRuntimeConformance('sandbox (shell prelude)', () => {
    const before = process.env[PRELUDE_CHOICE_VARIABLE];
    process.env[PRELUDE_CHOICE_VARIABLE] = 'shell';
    try {
      return new SandboxRuntime();
    } finally {
      if (before === undefined) delete process.env[PRELUDE_CHOICE_VARIABLE];
      else process.env[PRELUDE_CHOICE_VARIABLE] = before;
    }
  });

  describe('SandboxRuntime', () => {
    const workspace = mkdtempSync(join(tmpdir(), 'skillbox-sandbox-'));
    afterAll(() => rmSync(workspace, { recursive: true, force: true }));
    const command = {
      workspaceRoot: workspace,
      cwd: workspace,
      env: { PATH: '/usr/bin:/bin' },
      timeoutMs: 10_000,
      maxOutputBytes: 64 * 1024,
    };

    it('mounts the workspace at /workspace and maps paths there', async () => {
      const runtime = new SandboxRuntime();
      expect(runtime.isolated).toBe(true);
      expect(runtime.guestPath(workspace, workspace)).toBe('/workspace');
      expect(runtime.guestPath(join(workspace, 'skills', 'a'), workspace)).toBe('/workspace/skills/a');
      expect(() => runtime.guestPath('/etc', workspace)).toThrow(RuntimeCommandError);
      const result = await runtime.run({ ...command, command: 'ls -d /workspace && touch /workspace/made' });
      expect(result).toMatchObject({ stdout: '/workspace\n', exitCode: 0 });
    });

    it('shows only system folders, proc, dev, tmp and the workspace at the root', async () => {
      const result = await new SandboxRuntime().run({ ...command, command: 'ls /' });
      const allowed = [
        'bin',
        'dev',
        'etc',
        'lib',
        'lib32',
        'lib64',
        'libx32',
        'proc',
        'sbin',
        'tmp',
        'usr',
        'workspace',
        // Holds the compiled prelude alone, read-only (sandbox-prelude-program.ts), where it was built.
        'run',
      ];
      for (const entry of result.stdout.split('\n').filter(Boolean)) expect(allowed).toContain(entry);
      const run = await new SandboxRuntime().run({ ...command, command: 'ls -A /run 2>/dev/null' });
      expect(['', 'skillbox-prelude']).toContain(run.stdout.trim());
    });

    it('runs python3, bash and coreutils inside', async () => {
      const result = await new SandboxRuntime().run({
        ...command,
        command:
          'python3 -c "import json, ssl, sqlite3; print(json.dumps({\'ok\': 1}))" && sort <<< "b\na" | tr "\\n" , && date +%Y >/dev/null',
      });
      expect(result).toMatchObject({ stdout: '{"ok": 1}\na,b,', exitCode: 0 });
    });

    it('passes on environment names that are not shell identifiers, and leaves a variable named like a prelude loop variable as given', async () => {
      // dash drops such names, so they get the bash prelude; `fd` is the name both preludes loop with.
      const runtime = new SandboxRuntime();
      const env = { PATH: '/usr/bin:/bin', 'odd-name': 'kept', fd: 'mine' };
      const result = await runtime.run({ ...command, env, argv: ['env'] });
      expect(result.exitCode).toBe(0);
      expect(result.stdout.split('\n')).toEqual(expect.arrayContaining(['odd-name=kept', 'fd=mine']));
      const plain = await runtime.run({ ...command, env: { PATH: '/usr/bin:/bin', fd: 'mine' }, argv: ['env'] });
      expect(plain.stdout.split('\n')).toContain('fd=mine');
    });

    it('applies the memory and file-size limits', async () => {
      const runtime = new SandboxRuntime({ maxFileSizeBytes: 1024 * 1024, maxMemoryBytes: 512 * 1024 * 1024 });
      const big = await runtime.run({
        ...command,
        command: 'head -c 2000000 /dev/zero > big.bin; echo status=$?; stat -c %s big.bin',
      });
      expect(big.stdout).toBe('status=153\n1048576\n'); // SIGXFSZ (25) + 128
      const hungry = await runtime.run({ ...command, command: 'python3 -c "b = bytearray(1024 * 1024 * 1024)"' });
      expect(hungry.exitCode).not.toBe(0);
      expect(hungry.stderr).toContain('MemoryError');
    });

    it('makes extra read-only paths visible but not writable', async () => {
      const source = mkdtempSync(join(tmpdir(), 'skillbox-readonly-'));
      try {
        mkdirSync(join(source, 'folder'));
        const result = await new SandboxRuntime().run({
          ...command,
          readOnlyPaths: [source],
          command: `ls ${source}; touch ${source}/new 2>/dev/null || echo refused`,
        });
        expect(result.stdout).toBe('folder\nrefused\n');
        await expect(
          new SandboxRuntime().run({ ...command, command: 'true', readOnlyPaths: ['relative'] }),
        ).rejects.toMatchObject({ field: 'readOnlyPaths[0]' });
      } finally {
        rmSync(source, { recursive: true, force: true });
      }
    });

    it('refuses bad options and a bubblewrap that is not there, at construction', () => {
      expect(() => new SandboxRuntime({ maxProcesses: 0 })).toThrow(SkillboxConfigError);
      expect(() => new SandboxRuntime({ maxProcesses: 0, maxCpus: 0 })).toThrow(
        'SandboxRuntime: 2 invalid options:\n' +
          '  - "maxProcesses" must be a positive integer or null; got 0\n' +
          '  - "maxCpus" must be a number of CPUs of at least 0.01, or null; got 0',
      );
      expect(() => new SandboxRuntime({ bubblewrapPath: '/nonexistent/bwrap' })).toThrow(SandboxUnavailableError);
      expect(() => new SandboxRuntime({ bubblewrapPath: '/nonexistent/bwrap' })).toThrow(/apt-get install bubblewrap/);
    });
  });
});
