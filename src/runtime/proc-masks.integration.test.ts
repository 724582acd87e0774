import { spawnSync } from 'node:child_process';
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
});
