import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../../test/support/services.js';
import { startWorkerProcess } from '../../worker/testing/worker-process.js';
import { main } from '../main.js';

const folder = mkdtempSync(join(tmpdir(), 'skillbox-worker-cli-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

async function runWorker(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(['worker', ...args], {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    cwd: folder,
    env: {},
  });
  return { code, stdout, stderr };
}

describe('skillbox worker', () => {
  it('refuses to start without a secret', async () => {
    const { code, stderr } = await runWorker(['--listen', '127.0.0.1:0']);
    expect(code).toBe(2);
    expect(stderr).toContain('--secret-file is required');
  });

  it('refuses a secret file others can read, and a short secret, without printing what it holds', async () => {
    const open = join(folder, 'open-secret');
    const secret = randomBytes(32).toString('hex');
    writeFileSync(open, secret, { mode: 0o644 });
    const readable = await runWorker(['--secret-file', open]);
    expect(readable.code).toBe(2);
    expect(readable.stderr).toContain('readable by group or others (mode 644); chmod 600');
    expect(readable.stderr).not.toContain(secret);
    const short = join(folder, 'short-secret');
    writeFileSync(short, 'tooshort\n', { mode: 0o600 });
    const shortAnswer = await runWorker(['--secret-file', short]);
    expect(shortAnswer.code).toBe(2);
    expect(shortAnswer.stderr).toContain('fewer than 32 bytes');
    expect(shortAnswer.stderr).not.toContain('tooshort');
  });

  it('names a bad --listen, --max-runs or --ledger', async () => {
    const file = join(folder, 'secret');
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
    expect((await runWorker(['--secret-file', file, '--listen', 'nowhere'])).stderr).toContain(
      '--listen must be HOST:PORT',
    );
    expect((await runWorker(['--secret-file', file, '--max-runs', '0'])).stderr).toContain(
      '--max-runs must be a positive integer',
    );
    expect((await runWorker(['--secret-file', file, '--ledger', 'mysql://x'])).stderr).toContain(
      '--ledger must be a postgres:// URL',
    );
  });

  it.runIf(sandboxWorks)('listens on loopback and never prints its secret', async () => {
    const worker = await startWorkerProcess();
    try {
      expect(worker.url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
    } finally {
      await worker.stop();
    }
    expect(worker.stderr()).not.toContain(worker.secret);
    expect(worker.child.exitCode).toBe(0);
  });
});
