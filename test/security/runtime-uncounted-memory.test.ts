import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSandboxSupport } from '../../src/runtime/sandbox-support.js';
import { sandboxWorks } from '../support/services.js';
import { sandboxFixture } from './runtime-fixture.js';

const probeScript = fileURLToPath(new URL('./uncounted-memory-probe.py', import.meta.url));
const MiB = 1024 * 1024;
const cap = 128 * MiB;

/** The most a probe reported holding at once, and how it ended. */
function outcome(stdout: string): { held: number; last: string } {
  const lines = stdout.trim().split('\n');
  const held = lines.filter((line) => line.startsWith('held ')).map((line) => Number(line.slice(5)));
  return { held: Math.max(0, ...held), last: lines.at(-1) ?? '' };
}

// RLIMIT_AS counts what a process maps, not what it holds: memory in a memfd, a System V shared
// memory segment or a message queue stays allocated while nothing maps it. A memory cgroup counts
// all of it; without one (a non-root host with no delegated cgroup) these held 450 MiB under a
// 128 MiB cap. /tmp and /dev/shm are tmpfs too and are bounded by their own sizes (kept small here).
describe.runIf(sandboxWorks)('sandbox runtime: memory the address-space limit does not count', () => {
  const support = detectSandboxSupport();
  const fixture = sandboxFixture({ maxMemoryBytes: cap, maxTmpBytes: 8 * MiB, maxSharedMemoryBytes: 8 * MiB });
  beforeAll(() => copyFileSync(probeScript, join(fixture.workspace, 'uncounted-memory-probe.py')));
  afterAll(() => fixture.dispose());

  for (const technique of ['memfd', 'shm', 'msg'])
    it(`holds no more than the memory cap through ${technique}`, async () => {
      const result = await fixture.run(`python3 uncounted-memory-probe.py ${technique} 450`, { timeoutMs: 60_000 });
      const { held, last } = outcome(result.stdout);
      expect(held, `${technique}: ${last} ${result.stderr}`).toBeLessThanOrEqual(cap);
    }, 90_000);

  it.runIf(support.available && support.memoryLimit === 'rlimit')(
    'refuses the calls as a kernel without them would, where no memory cgroup counts them',
    async () => {
      for (const technique of ['memfd', 'shm', 'msg']) {
        const result = await fixture.run(`python3 uncounted-memory-probe.py ${technique} 1`);
        expect(result.stdout, technique).toBe('refused ENOSYS\n');
      }
    },
  );

  it.runIf(support.available && support.memoryLimit === 'cgroup')(
    'keeps them where the memory cgroup counts them',
    async () => {
      for (const technique of ['memfd', 'shm', 'msg']) {
        const result = await fixture.run(`python3 uncounted-memory-probe.py ${technique} 16`);
        expect(result.stdout, technique).toMatch(/done\n$/);
      }
    },
  );

  it('keeps them without a memory cap, where there is nothing to escape', async () => {
    const uncapped = sandboxFixture({ maxMemoryBytes: null });
    try {
      copyFileSync(probeScript, join(uncapped.workspace, 'uncounted-memory-probe.py'));
      const result = await uncapped.run('python3 uncounted-memory-probe.py memfd 16');
      expect(result.stdout).toMatch(/done\n$/);
    } finally {
      uncapped.dispose();
    }
  });
});
