import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectSandboxSupport } from '../../src/runtime/sandbox-support.js';
import { retainedBytes } from '../support/retained-memory.js';
import { sandboxWorks } from '../support/services.js';
import { hostProcessesMentioning, sandboxFixture, sleep } from './runtime-fixture.js';

describe.runIf(sandboxWorks)('sandbox runtime: processes and output', () => {
  const fixture = sandboxFixture({ maxProcesses: 48 });
  afterAll(() => fixture.dispose());

  it('leaves nothing alive after a timeout, even what left the session or double-forked', async () => {
    const token = `skillbox-timeout-${process.pid}`;
    const loop = `while true; do echo tick >> /workspace/$0; sleep 0.05; done`;
    // The command says when all three writers are running, then outlives its timeout: how long the
    // sandbox takes to start on a loaded host changes nothing about what is asserted.
    const started = `while [ ! -s ${token}-plain ] || [ ! -s ${token}-setsid ] || [ ! -s ${token}-daemon ]; do sleep 0.05; done; echo running`;
    const result = await fixture.run(
      `sh -c '${loop}' ${token}-plain & setsid sh -c '${loop}' ${token}-setsid & (setsid sh -c '${loop}' ${token}-daemon &) ; ${started}; sleep 60`,
      { timeoutMs: 5_000 },
    );
    expect(result.stdout).toBe('running\n');
    expect(result.timedOut).toBe(true);
    expect(result.warnings.join('\n')).toContain('timed out after 5000 ms; the whole process tree was killed');
    await sleep(100);
    const sizes = ['plain', 'setsid', 'daemon'].map(
      (kind) => statSync(join(fixture.workspace, `${token}-${kind}`)).size,
    );
    // Each writer appends every 50 ms: one still alive would have grown its file by now.
    await sleep(500);
    expect(
      ['plain', 'setsid', 'daemon'].map((kind) => statSync(join(fixture.workspace, `${token}-${kind}`)).size),
    ).toEqual(sizes);
    expect(hostProcessesMentioning(token)).toEqual([]);
  }, 60_000);

  it('caps the number of processes a run may start', async () => {
    const result = await fixture.run(
      'python3 -c "\nimport os, time\nn = 0\ntry:\n    while n < 1000:\n        if os.fork() == 0:\n            time.sleep(20)\n            os._exit(0)\n        n += 1\nexcept OSError:\n    pass\nprint(n)"',
    );
    expect(result.exitCode).toBe(0);
    const started = Number(result.stdout.trim());
    expect(started).toBeGreaterThan(5);
    expect(started).toBeLessThan(48);
  });

  it('cannot lift the caps from a nested user namespace, where it would hold every capability', async () => {
    // The attack: unshare -Ur gave root with all capabilities one namespace down, enough to mount a
    // cgroup hierarchy of its own and run 150 processes past a 48-process cap.
    const result = await fixture.run(
      'unshare --user --map-root-user --mount sh -c "echo inside"; unshare --user --map-root-user --pid --fork true && echo nested',
    );
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Operation not permitted');
  });

  it.runIf(
    detectSandboxSupport().available && (detectSandboxSupport() as { processLimit: string }).processLimit === 'cgroup',
  )('says when a run reached its process cap', async () => {
    const result = await fixture.run(
      'python3 -c "\nimport os, time\nfor _ in range(100):\n    try:\n        if os.fork() == 0:\n            time.sleep(20)\n            os._exit(0)\n    except OSError:\n        break"',
    );
    expect(result.limitsHit).toEqual(['processes']);
    expect(result.warnings.join('\n')).toContain('process cap (48 processes)');
    expect((await fixture.run('true')).limitsHit).toBeUndefined();
  });

  it.runIf(detectSandboxSupport().available && (detectSandboxSupport() as { cpuLimit: string }).cpuLimit === 'cgroup')(
    'caps CPU time: a busy run is throttled to its share and says so',
    async () => {
      const capped = sandboxFixture({ maxCpus: 0.2 });
      try {
        const busy =
          'python3 -c "import time\nstart = time.time()\nwhile time.time() - start < 1.5: pass\nprint(round(time.process_time(), 2))"';
        const result = await capped.run(busy);
        expect(Number(result.stdout)).toBeLessThan(0.6);
        expect(result.limitsHit).toEqual(['cpu']);
        expect(result.warnings.join('\n')).toContain('CPU cap (0.2 CPUs)');
      } finally {
        capped.dispose();
      }
    },
  );

  it('contains a fork storm: the host stays responsive and nothing survives', async () => {
    const token = `skillbox-storm-${process.pid}`;
    const storm = fixture.run(`storm() { storm | storm & }; storm; sleep 30 # ${token}`, { timeoutMs: 2_000 });
    await sleep(500);
    // While the storm runs, the host can still start a process. The bound is loose on purpose: it
    // tells a host whose process table is full (the start fails or hangs) from one that is merely busy.
    const probeStarted = performance.now();
    const probe = spawnSync('true', { timeout: 20_000 });
    const probeMs = performance.now() - probeStarted;
    const result = await storm;
    expect(probe.status).toBe(0);
    expect(probeMs).toBeLessThan(10_000);
    expect(result.timedOut).toBe(true);
    await sleep(200);
    expect(hostProcessesMentioning(token)).toEqual([]);
  });

  it('caps 100 MB on stdout without holding it in memory', async () => {
    const before = await retainedBytes();
    // Producing 100 MB takes seconds on a loaded host: the timeout is far beyond that, so only the cap ends it.
    const result = await fixture.run('head -c 100000000 /dev/zero | tr "\\0" a; echo done >&2', {
      maxOutputBytes: 64 * 1024,
      timeoutMs: 120_000,
    });
    const grown = (await retainedBytes()) - before;
    expect(result).toMatchObject({
      exitCode: 0,
      stdoutTruncated: true,
      stdoutDroppedBytes: 100_000_000 - 64 * 1024,
      stderr: 'done\n',
    });
    expect(result.stdout.length).toBe(64 * 1024);
    expect(grown).toBeLessThan(16 * 1024 * 1024);
  }, 150_000);

  it('cannot fill the disk past the file-size limit', async () => {
    const limited = sandboxFixture({ maxFileSizeBytes: 4096 });
    try {
      const result = await limited.run('head -c 100000 /dev/zero > big.bin; echo $?');
      expect(result.stdout.trim()).toBe('153');
      expect(statSync(join(limited.workspace, 'big.bin')).size).toBe(4096);
      expect(existsSync(join(limited.workspace, 'big.bin'))).toBe(true);
    } finally {
      limited.dispose();
    }
  });

  it('bounds /tmp and /dev/shm (tmpfs would take half the host RAM) and keeps the rest of /dev read-only', async () => {
    const sized = sandboxFixture({ maxTmpBytes: 2 * 1024 * 1024, maxSharedMemoryBytes: 1024 * 1024 });
    try {
      const result = await sized.run(
        'df -B1 --output=size /tmp /dev/shm | tail -n +2; head -c 3000000 /dev/zero > /tmp/big; echo tmp=$?; head -c 2000000 /dev/zero > /dev/shm/big; echo shm=$?; (echo x > /dev/planted) 2>/dev/null; echo dev=$?; echo ok > /dev/null && echo null=ok',
      );
      const [tmpSize, shmSize, ...rest] = result.stdout.trim().split('\n');
      expect(Number(tmpSize)).toBe(2 * 1024 * 1024);
      expect(Number(shmSize)).toBe(1024 * 1024);
      expect(rest).toEqual(['tmp=1', 'shm=1', 'dev=1', 'null=ok']);
      // The defaults bound them too.
      const defaults = await fixture.run('df -B1 --output=size /tmp /dev/shm | tail -n +2');
      expect(defaults.stdout.trim().split('\n').map(Number)).toEqual([1024 ** 3, 64 * 1024 ** 2]);
    } finally {
      sized.dispose();
    }
  });

  const support = detectSandboxSupport();
  it.runIf(support.available && support.memoryLimit === 'cgroup')(
    'caps the memory of all processes together, not only each one',
    async () => {
      const capped = sandboxFixture({ maxMemoryBytes: 256 * 1024 * 1024 });
      try {
        // Four processes of about 130 MiB each: every one fits the per-process cap, together they do not.
        const grab = `python3 -c "import time; a = bytearray(100 * 1024 * 1024); time.sleep(0.8); print('kept')"`;
        const result = await capped.run(`for i in 1 2 3 4; do ${grab} & done; wait`, { timeoutMs: 20_000 });
        const kept = result.stdout.split('\n').filter((line) => line === 'kept').length;
        expect(kept).toBeLessThan(4);
        // One alone fits.
        expect((await capped.run(grab)).stdout).toBe('kept\n');
      } finally {
        capped.dispose();
      }
    },
  );
});
