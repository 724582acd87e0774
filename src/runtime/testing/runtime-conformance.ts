import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeCommandError } from '../errors.js';
import type { RuntimeCommand, WorkspaceRuntime } from '../runtime-types.js';

const PATH = '/usr/local/bin:/usr/bin:/bin';

/**
 * The behaviour every WorkspaceRuntime must share, as vitest tests. A runtime's own test file
 * calls this once: `describeRuntimeConformance('local', () => new LocalRuntime())`.
 */
export function describeRuntimeConformance(name: string, createRuntime: () => WorkspaceRuntime): void {
  describe(`${name} runtime conformance`, () => {
    let runtime: WorkspaceRuntime;
    let workspace: string;
    const base = (): Omit<RuntimeCommand, 'command' | 'argv'> => ({
      workspaceRoot: workspace,
      cwd: workspace,
      env: { PATH },
      timeoutMs: 10_000,
      maxOutputBytes: 64 * 1024,
    });
    const sh = (command: string, extra: Partial<RuntimeCommand> = {}) => runtime.run({ ...base(), command, ...extra });

    beforeAll(() => {
      runtime = createRuntime();
      workspace = mkdtempSync(join(tmpdir(), `skillbox-conformance-${name}-`));
    });
    afterAll(() => rmSync(workspace, { recursive: true, force: true }));

    it('reports exit codes and keeps stdout and stderr apart', async () => {
      const ok = await sh('echo out; echo err >&2');
      expect(ok).toMatchObject({ stdout: 'out\n', stderr: 'err\n', exitCode: 0, timedOut: false });
      expect((await sh('exit 7')).exitCode).toBe(7);
    });

    it('maps a killing signal to 128 + its number', async () => {
      const result = await sh('kill -TERM $$');
      expect(result.exitCode).toBe(143);
      expect(result.timedOut).toBe(false);
    });

    it('feeds stdin, as text or bytes', async () => {
      expect((await sh('cat', { stdin: 'line one\nline two\n' })).stdout).toBe('line one\nline two\n');
      expect((await sh('wc -c', { stdin: new Uint8Array(1000).fill(65) })).stdout.trim()).toBe('1000');
      expect((await sh('cat')).stdout).toBe('');
    });

    it('gives the process exactly the environment asked for', async () => {
      process.env.SKILLBOX_CONFORMANCE_HOST_ONLY = 'host-secret';
      try {
        const env = { PATH, ALPHA: 'one', 'WITH SPACE': 'x y', EMPTY: '' };
        const result = await runtime.run({ ...base(), env, argv: ['env'] });
        expect(result.exitCode).toBe(0);
        expect(result.stdout.split('\n').filter(Boolean).sort()).toEqual([
          'ALPHA=one',
          'EMPTY=',
          `PATH=${PATH}`,
          'WITH SPACE=x y',
        ]);
        expect(result.stdout).not.toContain('host-secret');
      } finally {
        delete process.env.SKILLBOX_CONFORMANCE_HOST_ONLY;
      }
    });

    it('runs in the given cwd, where relative writes land in the workspace', async () => {
      const sub = join(workspace, 'cwd-test', 'inner');
      mkdirSync(sub, { recursive: true });
      const result = await sh('pwd; echo made > here.txt', { cwd: sub });
      expect(result.stdout.trim()).toBe(runtime.guestPath(sub, workspace));
      expect(readFileSync(join(sub, 'here.txt'), 'utf8')).toBe('made\n');
    });

    it('runs argv without a shell', async () => {
      const result = await runtime.run({ ...base(), argv: ['printf', '%s|', 'a b', '$HOME', ';', '*'] });
      expect(result).toMatchObject({ stdout: 'a b|$HOME|;|*|', exitCode: 0 });
    });

    it('reports a program that does not exist as 127 with its name', async () => {
      const result = await runtime.run({ ...base(), argv: ['skillbox-no-such-program'] });
      expect(result.exitCode).toBe(127);
      expect(result.stderr).toContain('skillbox-no-such-program');
    });

    it('kills the whole process tree on timeout, background jobs included', async () => {
      const marker = join(workspace, 'timeout-marker');
      const started = performance.now();
      const result = await sh(`(while true; do echo tick >> timeout-marker; sleep 0.05; done) & sleep 30`, {
        timeoutMs: 400,
      });
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(result.timedOut).toBe(true);
      expect(result.exitCode).toBe(137);
      expect(result.warnings.join('\n')).toMatch(/timed out/);
      const sizeAfterKill = statSync(marker).size;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(statSync(marker).size).toBe(sizeAfterKill);
    });

    it('ends background jobs when the command itself ends', async () => {
      const result = await sh('(sleep 0.3; echo late > late.txt) & echo started');
      expect(result).toMatchObject({ stdout: 'started\n', exitCode: 0, timedOut: false });
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(existsSync(join(workspace, 'late.txt'))).toBe(false);
    });

    it('stops on an abort signal', async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const result = await sh('sleep 30', { abortSignal: controller.signal });
      expect(result.timedOut).toBe(false);
      expect(result.exitCode).toBe(137);
      expect(result.warnings.join('\n')).toMatch(/aborted/);
    });

    it('measures the duration', async () => {
      const result = await sh('sleep 0.2');
      expect(result.durationMs).toBeGreaterThanOrEqual(190);
      expect(result.durationMs).toBeLessThan(5_000);
    });

    it('caps stdout and stderr without splitting a character, counting what it dropped', async () => {
      // 100 euro signs are 300 bytes; a 10-byte cap keeps 3 of them (9 bytes).
      const result = await sh(`for i in $(seq 100); do printf '€'; printf '€' >&2; done`, { maxOutputBytes: 10 });
      expect(result.stdout).toBe('€€€');
      expect(result.stderr).toBe('€€€');
      expect(result).toMatchObject({
        stdoutTruncated: true,
        stderrTruncated: true,
        stdoutDroppedBytes: 291,
        stderrDroppedBytes: 291,
      });
      expect(result.warnings.join('\n')).toMatch(/stdout truncated.*dropped 291/);
      expect(result.exitCode).toBe(0);
    });

    it('refuses a cwd that does not exist or is outside the workspace, by field name', async () => {
      await expect(sh('true', { cwd: join(workspace, 'missing') })).rejects.toMatchObject({
        constructor: RuntimeCommandError,
        field: 'cwd',
        message: expect.stringContaining('does not exist'),
      });
      await expect(sh('true', { cwd: tmpdir() })).rejects.toMatchObject({
        field: 'cwd',
        message: expect.stringContaining('not inside the workspace'),
      });
    });

    it('refuses a command that is both or neither of command and argv, and bad limits', async () => {
      await expect(runtime.run({ ...base(), command: 'true', argv: ['true'] })).rejects.toBeInstanceOf(
        RuntimeCommandError,
      );
      await expect(runtime.run({ ...base() })).rejects.toBeInstanceOf(RuntimeCommandError);
      await expect(sh('true', { timeoutMs: 0 })).rejects.toMatchObject({ field: 'timeoutMs' });
      // Past 2^31-1 ms a Node timer fires at once: the run would end "timed out" immediately.
      await expect(sh('true', { timeoutMs: 3_000_000_000 })).rejects.toMatchObject({
        field: 'timeoutMs',
        message: expect.stringContaining('at most 2147483647 ms'),
      });
      await expect(sh('true', { env: { 'A=B': 'x' } })).rejects.toMatchObject({ field: 'env.A=B' });
    });

    it('writes files that the host sees in the workspace', async () => {
      writeFileSync(join(workspace, 'input.txt'), 'from host');
      const result = await sh('cat input.txt > copy.txt && python3 -c "print(open(\'copy.txt\').read())"');
      expect(result).toMatchObject({ stdout: 'from host\n', exitCode: 0 });
      expect(readFileSync(join(workspace, 'copy.txt'), 'utf8')).toBe('from host');
    });
  });
}
