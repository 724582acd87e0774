import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../test/support/services.js';
import { detectSandboxSupport } from './sandbox-support.js';

const support = sandboxWorks ? detectSandboxSupport() : undefined;
const folder = mkdtempSync(join(tmpdir(), 'skillbox-probe-processes-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const supportModule = fileURLToPath(new URL('./sandbox-support.ts', import.meta.url));

/** Detects sandbox support in a new Node process, as each `skillbox` command does, through `bubblewrap`. */
function detectInNewProcess(bubblewrap: string, cacheHome: string): unknown {
  const script = `const { detectSandboxSupport } = await import(${JSON.stringify(supportModule)});
const support = detectSandboxSupport({ bubblewrapPath: ${JSON.stringify(bubblewrap)} });
process.stdout.write(JSON.stringify({ available: support.available, sizedTmpfs: support.sizedTmpfs }));`;
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, HOME: cacheHome, XDG_CACHE_HOME: cacheHome },
    encoding: 'utf8',
  });
  return JSON.parse(output);
}

describe.runIf(support?.available === true)('the sandbox probe across processes', () => {
  it('starts a probe sandbox in the first process only; a later one reads the answer', () => {
    const available = support as Extract<typeof support, { available: true }>;
    const log = join(folder, 'bubblewrap-calls');
    const bubblewrap = join(folder, 'bwrap');
    // Counts its starts, then is the real bubblewrap.
    writeFileSync(bubblewrap, `#!/bin/sh\necho x >> '${log}'\nexec '${available.bubblewrapPath}' "$@"\n`);
    chmodSync(bubblewrap, 0o755);
    const cacheHome = join(folder, 'cache');
    const starts = () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
    expect(detectInNewProcess(bubblewrap, cacheHome)).toEqual({ available: true, sizedTmpfs: available.sizedTmpfs });
    expect(starts()).toBeGreaterThanOrEqual(1);
    const afterFirst = starts();
    expect(detectInNewProcess(bubblewrap, cacheHome)).toEqual({ available: true, sizedTmpfs: available.sizedTmpfs });
    expect(starts()).toBe(afterFirst);
    // A changed bubblewrap is probed again.
    writeFileSync(bubblewrap, `#!/bin/sh\necho y >> '${log}'\nexec '${available.bubblewrapPath}' "$@"\n`);
    expect(detectInNewProcess(bubblewrap, cacheHome)).toEqual({ available: true, sizedTmpfs: available.sizedTmpfs });
    expect(starts()).toBeGreaterThan(afterFirst);
  });

  it('remembers no refusal: a bubblewrap that cannot make a sandbox is asked each time', () => {
    const log = join(folder, 'refusing-calls');
    const bubblewrap = join(folder, 'refusing-bwrap');
    writeFileSync(
      bubblewrap,
      `#!/bin/sh\necho x >> '${log}'\necho 'No permissions to create new namespace' >&2\nexit 1\n`,
    );
    chmodSync(bubblewrap, 0o755);
    const cacheHome = join(folder, 'cache-refusing');
    expect(detectInNewProcess(bubblewrap, cacheHome)).toMatchObject({ available: false });
    const afterFirst = readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
    expect(detectInNewProcess(bubblewrap, cacheHome)).toMatchObject({ available: false });
    expect(readFileSync(log, 'utf8').split('\n').filter(Boolean).length).toBe(afterFirst * 2);
  });
});
