import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { RuntimeCommand } from '../runtime-types.js';
import {
  commandError,
  conformanceCommand,
  conformancePath,
  type RuntimeConformanceSubject,
} from './runtime-conformance-subject.js';

/**
 * The `run` cases of the runtime conformance suite that concern what the process gets and reports:
 * exit codes and signals, stdin, the exact environment, cwd, argv without a shell, a missing
 * program, and the cwd the runtime alone can judge.
 */
export function describeRuntimeRunConformance(current: () => RuntimeConformanceSubject): void {
  const sh = (command: string, extra: Partial<RuntimeCommand> = {}) =>
    current().runtime.run({ ...conformanceCommand(current(), extra), command });

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
      const env = { PATH: conformancePath, ALPHA: 'one', 'WITH SPACE': 'x y', EMPTY: '' };
      const result = await current().runtime.run({ ...conformanceCommand(current(), { env }), argv: ['env'] });
      expect(result.exitCode).toBe(0);
      expect(result.stdout.split('\n').filter(Boolean).sort()).toEqual([
        'ALPHA=one',
        'EMPTY=',
        `PATH=${conformancePath}`,
        'WITH SPACE=x y',
      ]);
      expect(result.stdout).not.toContain('host-secret');
    } finally {
      delete process.env.SKILLBOX_CONFORMANCE_HOST_ONLY;
    }
  });

  it('runs in the given cwd, where relative writes land in the workspace', async () => {
    const { runtime, workspace, files } = current();
    const sub = join(workspace, 'cwd-test', 'inner');
    await files.makeFolder('cwd-test/inner');
    const result = await sh('pwd; echo made > here.txt', { cwd: sub });
    expect(result.stdout.trim()).toBe(runtime.guestPath(sub, workspace));
    expect((await files.read('cwd-test/inner/here.txt', 100)).data.toString()).toBe('made\n');
  });

  it('runs argv without a shell', async () => {
    const argv = ['printf', '%s|', 'a b', '$HOME', ';', '*'];
    const result = await current().runtime.run({ ...conformanceCommand(current()), argv });
    expect(result).toMatchObject({ stdout: 'a b|$HOME|;|*|', exitCode: 0 });
  });

  it('reports a program that does not exist as 127 with its name', async () => {
    const argv = ['skillbox-no-such-program'];
    const result = await current().runtime.run({ ...conformanceCommand(current()), argv });
    expect(result.exitCode).toBe(127);
    expect(result.stderr).toContain('skillbox-no-such-program');
  });

  // The fields of a command are checked above the runtime (`validateRuntimeCommand`, which the
  // workspace layer calls before every run), and a runtime need not repeat that. Where the cwd
  // leads when the command starts only the runtime can see: a command may have removed it, or put
  // a link to elsewhere in its place, after the caller checked it.
  it('refuses a cwd that is missing, or that a link in the workspace leads out of, by field name', async () => {
    const { workspace } = current();
    expect((await sh('ln -s / leads-out && ln -s / .hidden-out')).exitCode).toBe(0);
    await expect(sh('true', { cwd: join(workspace, 'missing') })).rejects.toMatchObject(commandError('cwd'));
    await expect(sh('true', { cwd: join(workspace, 'leads-out') })).rejects.toMatchObject(commandError('cwd'));
    await expect(sh('true', { cwd: join(workspace, '.hidden-out', tmpdir().slice(1)) })).rejects.toMatchObject(
      commandError('cwd'),
    );
  });
}

/**
 * The `run` cases that concern limits: the whole-tree timeout, background jobs ending with the
 * command, the abort signal, the measured duration and the output caps.
 */
export function describeRuntimeLimitConformance(current: () => RuntimeConformanceSubject): void {
  const sh = (command: string, extra: Partial<RuntimeCommand> = {}) =>
    current().runtime.run({ ...conformanceCommand(current(), extra), command });

  it('kills the whole process tree on timeout, background jobs included', async () => {
    const { files } = current();
    const started = performance.now();
    const result = await sh(`(while true; do echo tick >> timeout-marker; sleep 0.05; done) & sleep 30`, {
      timeoutMs: 400,
    });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBe(137);
    expect(result.warnings.length).toBeGreaterThan(0);
    const sizeAfterKill = (await files.inspect('timeout-marker'))?.sizeBytes;
    expect(sizeAfterKill).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await files.inspect('timeout-marker'))?.sizeBytes).toBe(sizeAfterKill);
  });

  it('ends background jobs when the command itself ends', async () => {
    const result = await sh('(sleep 0.3; echo late > late.txt) & echo started');
    expect(result).toMatchObject({ stdout: 'started\n', exitCode: 0, timedOut: false });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await current().files.inspect('late.txt')).toBeUndefined();
  });

  it('stops on an abort signal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await sh('sleep 30', { abortSignal: controller.signal });
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBe(137);
    expect(result.warnings.length).toBeGreaterThan(0);
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
    expect(result.warnings.length).toBeGreaterThan(0);
    expect(result.exitCode).toBe(0);
  });
}
