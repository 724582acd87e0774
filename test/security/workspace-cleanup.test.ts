import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const tsx = path.resolve('node_modules/.bin/tsx');
const leftovers = path.resolve('test/security/workspace-leftovers.ts');
const isRoot = process.getuid?.() === 0;

/**
 * Cleanup against what a script can leave in its workspace. As root, permissions never stop a
 * removal, so the read-only folders matter only for an unprivileged host, run with setpriv.
 */
describe.runIf(process.platform === 'linux')('workspace security: cleanup survives what a script leaves', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'skillbox-ws-cleanup-'));
    await chmod(scratch, 0o755);
  });
  afterAll(async () => {
    await run('chmod', ['-R', 'u+rwX', scratch]).catch(() => undefined);
    await run('rm', ['-rf', scratch]);
  });

  const expectAllRemoved = (stdout: string) => {
    const report = JSON.parse(stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;
    expect(report).toMatchObject({ cleanup: 'true', left: { byRequest: false, byAge: false, noMetadata: false } });
    expect(report.sweep).toBe('by-age,no-metadata');
    // A 1 GB metadata.json is never read: no stall, no memory spike.
    expect(report.milliseconds).toBeLessThan(10_000);
    expect(report.rssGrowthMb).toBeLessThan(100);
  };

  it('as the user running it (root here)', async () => {
    const base = path.join(scratch, 'as-self');
    const { stdout } = await run(tsx, [leftovers, base], { timeout: 60_000 });
    expectAllRemoved(stdout);
  }, 90_000);

  it.runIf(isRoot)(
    'as an unprivileged user (setpriv --reuid=65534), where chmod 000 and 0500 stop a plain removal',
    async () => {
      const home = path.join(scratch, 'nobody');
      await run('mkdir', ['-p', home]);
      await chown(home, 65534, 65534);
      const { stdout } = await run(
        'setpriv',
        ['--reuid=65534', '--regid=65534', '--clear-groups', tsx, leftovers, path.join(home, 'base')],
        { timeout: 60_000, env: { ...process.env, HOME: home } },
      );
      expect(stdout).toContain('"uid":65534');
      expectAllRemoved(stdout);
    },
    90_000,
  );
});
