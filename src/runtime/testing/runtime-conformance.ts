import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeCommand, WorkspaceRuntime } from '../runtime-types.js';
import type { WorkspaceFiles } from '../workspace-files.js';
import { describeRuntimeProcessConformance } from './runtime-process-conformance.js';

const PATH = '/usr/local/bin:/usr/bin:/bin';

/** A refused command field, as every runtime reports it: `code` and `field`, whatever the class or wording. */
const commandError = (field: string) => ({ code: 'RUNTIME_COMMAND_INVALID', field });

/**
 * The behaviour every WorkspaceRuntime must share, as vitest tests. A runtime's own test file
 * calls this once: `describeRuntimeConformance('local', () => new LocalRuntime())`. The suite
 * reaches the workspace only through the runtime (`run` and `files`), so it holds for a runtime
 * whose workspaces live elsewhere; `dispose` is called with the runtime at the end.
 */
export function describeRuntimeConformance(
  name: string,
  createRuntime: () => WorkspaceRuntime | Promise<WorkspaceRuntime>,
  dispose?: (runtime: WorkspaceRuntime) => Promise<void> | void,
): void {
  describe(`${name} runtime conformance`, () => {
    let runtime: WorkspaceRuntime;
    let workspace: string;
    let files: WorkspaceFiles;
    const base = (): Omit<RuntimeCommand, 'command' | 'argv'> => ({
      workspaceRoot: workspace,
      cwd: workspace,
      env: { PATH },
      timeoutMs: 10_000,
      maxOutputBytes: 64 * 1024,
    });
    const sh = (command: string, extra: Partial<RuntimeCommand> = {}) => runtime.run({ ...base(), command, ...extra });

    beforeAll(async () => {
      runtime = await createRuntime();
      workspace = mkdtempSync(join(tmpdir(), `skillbox-conformance-${name}-`));
      files = runtime.files(workspace);
    });
    afterAll(async () => {
      await files?.remove('');
      if (workspace !== undefined) rmSync(workspace, { recursive: true, force: true });
      if (runtime !== undefined) await dispose?.(runtime);
    });

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
      await files.makeFolder('cwd-test/inner');
      const result = await sh('pwd; echo made > here.txt', { cwd: sub });
      expect(result.stdout.trim()).toBe(runtime.guestPath(sub, workspace));
      expect((await files.read('cwd-test/inner/here.txt', 100)).data.toString()).toBe('made\n');
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
      expect(await files.inspect('late.txt')).toBeUndefined();
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

    it('refuses a cwd that does not exist or is outside the workspace, by field name', async () => {
      // Matched by code and field, never by class or prose: a runtime written outside this
      // repository throws its own SkillboxError-shaped errors.
      await expect(sh('true', { cwd: join(workspace, 'missing') })).rejects.toMatchObject(commandError('cwd'));
      await expect(sh('true', { cwd: tmpdir() })).rejects.toMatchObject(commandError('cwd'));
    });

    it('refuses a command that is both or neither of command and argv, and bad limits', async () => {
      await expect(runtime.run({ ...base(), command: 'true', argv: ['true'] })).rejects.toMatchObject({
        code: 'RUNTIME_COMMAND_INVALID',
      });
      await expect(runtime.run({ ...base() })).rejects.toMatchObject({ code: 'RUNTIME_COMMAND_INVALID' });
      await expect(sh('true', { timeoutMs: 0 })).rejects.toMatchObject(commandError('timeoutMs'));
      // Past 2^31-1 ms a Node timer fires at once: the run would end "timed out" immediately.
      await expect(sh('true', { timeoutMs: 3_000_000_000 })).rejects.toMatchObject(commandError('timeoutMs'));
      await expect(sh('true', { env: { 'A=B': 'x' } })).rejects.toMatchObject(commandError('env.A=B'));
    });

    it('writes files that the host sees in the workspace', async () => {
      await files.put('input.txt', { kind: 'file', mode: 0o644, content: { data: Buffer.from('from host') } });
      const result = await sh('cat input.txt > copy.txt && python3 -c "print(open(\'copy.txt\').read())"');
      expect(result).toMatchObject({ stdout: 'from host\n', exitCode: 0 });
      expect((await files.read('copy.txt', 100)).data.toString()).toBe('from host');
    });

    describe('workspace files', () => {
      const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

      it('places a tree (bytes, host files, links) that commands see, with digests while writing', async () => {
        const source = mkdtempSync(join(tmpdir(), 'skillbox-conformance-source-'));
        try {
          writeFileSync(join(source, 'host.txt'), 'host bytes');
          const placed = await files.put(
            'tree/copy',
            {
              kind: 'directory',
              mode: 0o755,
              entries: [
                { kind: 'directory', path: 'sub', mode: 0o755 },
                { kind: 'file', path: 'sub/given.txt', mode: 0o644, content: { data: Buffer.from('given') } },
                {
                  kind: 'file',
                  path: 'run.sh',
                  mode: 0o755,
                  content: { hostFile: join(source, 'host.txt'), within: source },
                },
                { kind: 'link', path: 'alias', target: 'sub/given.txt' },
              ],
            },
            { digests: true },
          );
          expect(placed.digests).toEqual({ 'sub/given.txt': sha256('given'), 'run.sh': sha256('host bytes') });
          expect((await files.inspect('tree/copy'))?.inode).toBe(placed.inode);
          const result = await sh('cat tree/copy/alias tree/copy/run.sh; test -x tree/copy/run.sh && echo exec');
          expect(result.stdout).toBe('givenhost bytesexec\n');
        } finally {
          rmSync(source, { recursive: true, force: true });
        }
      });

      it('replaces what is at the destination (a planted link itself), and refuses a parent that leads out', async () => {
        expect((await sh('mkdir -p plant && ln -s / plant/escape && ln -s /etc/hostname plant/link')).exitCode).toBe(0);
        await files.put('plant/link', { kind: 'file', mode: 0o644, content: { data: Buffer.from('replaced') } });
        expect((await files.inspect('plant/link'))?.kind).toBe('file');
        const name = `skillbox-conformance-${process.pid}`;
        await expect(
          files.put(`plant/escape/${name}`, { kind: 'file', mode: 0o644, content: { data: Buffer.from('x') } }),
        ).rejects.toMatchObject({ code: 'WORKSPACE_PATH_REFUSED' });
        await expect(files.makeFolder(`plant/escape/${name}`)).rejects.toMatchObject({
          code: 'WORKSPACE_PATH_REFUSED',
        });
        expect(existsSync(`/${name}`)).toBe(false);
      });

      it('reads only regular files inside the workspace, capped, and resolves links without leaving it', async () => {
        expect(
          (await sh('ln -sf /etc/hostname leak && printf 0123456789 > ten.txt && ln -sf ten.txt inner')).exitCode,
        ).toBe(0);
        await expect(files.read('leak', 100)).rejects.toThrow();
        expect(await files.read('ten.txt', 4)).toEqual({ data: Buffer.from('0123'), sizeBytes: 10 });
        const [leak, inner, missing] = await files.resolve(['leak', 'inner', 'no-such-file']);
        expect(leak).toEqual({ inside: false });
        expect(inner).toMatchObject({ inside: true, path: 'ten.txt', entry: { kind: 'file', sizeBytes: 10 } });
        expect(missing).toBeUndefined();
        expect((await files.inspect('inner'))?.kind).toBe('link');
      });

      it('lists depth first, sorted, without following links, within the limits', async () => {
        expect(
          (await sh('mkdir -p listing/b/deep && touch listing/a listing/b/c listing/b/deep/d && ln -s / listing/up'))
            .exitCode,
        ).toBe(0);
        const all = await files.list('listing', { maxDepth: Infinity, maxEntries: 100 });
        expect(all).toEqual({
          entries: [
            { path: 'a', kind: 'file' },
            { path: 'b', kind: 'directory' },
            { path: 'b/c', kind: 'file' },
            { path: 'b/deep', kind: 'directory' },
            { path: 'b/deep/d', kind: 'file' },
            { path: 'up', kind: 'link' },
          ],
          truncated: false,
        });
        expect(
          (await files.list('listing', { maxDepth: 1, maxEntries: 100 })).entries.map((entry) => entry.path),
        ).toEqual(['a', 'b', 'up']);
        expect(await files.list('listing', { maxDepth: Infinity, maxEntries: 2 })).toMatchObject({ truncated: true });
      });

      it('copies inside the workspace leaving out links that leave the copied folder', async () => {
        expect(
          (await sh('mkdir -p from && echo one > from/one && ln -s one from/same && ln -s /etc/hostname from/out'))
            .exitCode,
        ).toBe(0);
        await files.copy('from', 'to');
        const result = await sh('cat to/one to/same; ls to');
        expect(result.stdout).toBe('one\none\none\nsame\n');
      });

      it('creates folders (exclusively when asked), repairs replaced ones, removes, and measures', async () => {
        expect(await files.makeFolder('made/inner', { exclusive: true })).toBe(true);
        expect(await files.makeFolder('made/inner', { exclusive: true })).toBe(false);
        expect((await sh('rm -r made && ln -s / made')).exitCode).toBe(0);
        await files.ensureFolders(['made', 'made/inner']);
        expect((await files.inspect('made'))?.kind).toBe('directory');
        expect((await files.inspect('made/inner'))?.kind).toBe('directory');
        await files.remove('made');
        expect(await files.inspect('made')).toBeUndefined();
        await files.remove('made');
        const usage = await files.measure({ maxBytes: Infinity, maxFiles: Infinity });
        expect(usage.files).toBeGreaterThan(5);
        expect(usage.exceeded).toBeUndefined();
        expect((await files.measure({ maxBytes: Infinity, maxFiles: 2 })).exceeded).toBe('files');
      });
    });

    describe('background processes', () => {
      describeRuntimeProcessConformance(() => ({ runtime, workspace }));
    });
  });
}
