import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findExecutable, SYSTEM_PATH } from './find-executable.js';
import { procMasks } from './proc-masks.js';
import { detectSandboxSupport } from './sandbox-support.js';

const asRoot = process.getuid?.() === 0;
const unshare = findExecutable('unshare', SYSTEM_PATH);
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
const sandboxModule = fileURLToPath(new URL('./sandbox-runtime.ts', import.meta.url));
const masksModule = fileURLToPath(new URL('./proc-masks.ts', import.meta.url));

describe('procMasks', () => {
  it('masks the key listings on every host, and kernel state and root-only entries only on a root host', () => {
    const { files, folders } = procMasks();
    expect(files).toEqual(expect.arrayContaining(['/proc/keys']));
    if (asRoot) expect(files).toEqual(expect.arrayContaining(['/proc/slabinfo', '/proc/kallsyms']));
    else expect([...files, ...folders].filter((path) => !path.startsWith('/proc/key'))).toEqual([]);
  });

  // A filesystem mounted inside the host's /proc is absent from the sandbox's fresh one: a mask
  // over binfmt_misc's root-only `register` would stop every sandbox from starting. Mounted in a
  // mount namespace of the test's own, so the host's /proc is not touched.
  it.runIf(asRoot && unshare !== undefined && detectSandboxSupport().available)(
    'leaves out what another filesystem mounted inside /proc holds, and the sandbox still starts',
    () => {
      const script = [
        `import { procMasks } from ${JSON.stringify(masksModule)};`,
        `import { SandboxRuntime } from ${JSON.stringify(sandboxModule)};`,
        `import { mkdtempSync } from 'node:fs';`,
        `const workspace = mkdtempSync('/tmp/skillbox-proc-masks-');`,
        `const result = await new SandboxRuntime().run({ workspaceRoot: workspace, cwd: workspace, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 10000, maxOutputBytes: 1000, command: 'echo started' });`,
        `console.log(JSON.stringify({ binfmt: procMasks().files.filter((path) => path.includes('binfmt')), stdout: result.stdout }));`,
      ].join('\n');
      const outcome = spawnSync(
        unshare as string,
        [
          '--mount',
          '--propagation',
          'private',
          'sh',
          '-c',
          'mount -t binfmt_misc none /proc/sys/fs/binfmt_misc && test -e /proc/sys/fs/binfmt_misc/register && exec "$0" --input-type=module -e "$1"',
          tsx,
          script,
        ],
        { encoding: 'utf8', timeout: 60_000 },
      );
      expect(outcome.stderr).toBe('');
      expect(JSON.parse(outcome.stdout)).toEqual({ binfmt: [], stdout: 'started\n' });
    },
    90_000,
  );

  // The root walk costs some 9 ms per process; a later process reads it from the host probe cache,
  // but only while everything it masks still exists (a mask over a missing path stops the sandbox).
  it.runIf(asRoot)(
    'keeps the root walk across processes, and walks again when a kept path is gone',
    () => {
      const cacheHome = mkdtempSync(join(tmpdir(), 'skillbox-proc-masks-cache-'));
      try {
        const inNewProcess = () =>
          JSON.parse(
            execFileSync(
              process.execPath,
              [
                '--import',
                'tsx',
                '--input-type=module',
                '-e',
                `const { procMasks } = await import(${JSON.stringify(masksModule)}); process.stdout.write(JSON.stringify(procMasks()));`,
              ],
              { env: { PATH: process.env.PATH, HOME: cacheHome, XDG_CACHE_HOME: cacheHome }, encoding: 'utf8' },
            ),
          ) as { files: string[]; folders: string[] };
        const walked = inNewProcess();
        expect(walked.files).toEqual(expect.arrayContaining(['/proc/keys', '/proc/kallsyms']));
        const cacheFile = join(cacheHome, 'skillbox', 'host-probes.json');
        const entries = JSON.parse(readFileSync(cacheFile, 'utf8')) as Record<string, { answer: unknown }>;
        expect(entries['proc-masks']?.answer).toEqual(walked);
        // A kept answer is what the next process uses: one planted under the same identity shows it.
        const keep = (answer: unknown) => {
          (entries['proc-masks'] as { answer: unknown }).answer = answer;
          writeFileSync(cacheFile, JSON.stringify(entries), { mode: 0o600 });
        };
        keep({ ...walked, files: [...walked.files, '/proc/version'] });
        expect(inNewProcess().files).toContain('/proc/version');
        keep({ ...walked, files: [...walked.files, '/proc/no-such-entry'] });
        expect(inNewProcess()).toEqual(walked);
      } finally {
        rmSync(cacheHome, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
