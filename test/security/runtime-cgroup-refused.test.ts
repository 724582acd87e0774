// A host that says it has run cgroups (`processLimit: 'cgroup'`) may still refuse a run's cgroup:
// the parents are found by reading (cgroup-parents.ts), and what was read can change or not tell
// everything (cgroup v1's memory controller refuses new cgroups once its 65535 ids are used, dying
// ones included; a v2 subtree limit set above a container's own cgroup is not visible). As root,
// the pids cgroup is the only cap on a run's processes (RLIMIT_NPROC does not bind host root).
// The attack: a fork storm in a run whose cgroup could not be made in full. The memory or cpu
// hierarchy refusing must not cost the process cap; a run without it must say so.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  cpuCgroupParent,
  cpuCgroupParentInfo,
  memoryCgroupParent,
  pidsCgroupParent,
} from '../../src/runtime/cgroup-parents.js';
import { detectSandboxSupport } from '../../src/runtime/sandbox-support.js';
import { sandboxWorks } from '../support/services.js';
import { sandboxFixture } from './runtime-fixture.js';

/** Where making a run's cgroup folder fails, as the kernel would refuse it (hoisted: imports below probe). */
const refusal = vi.hoisted(() => ({ under: undefined as string | undefined }));

vi.mock('node:fs', async () => {
  const real = await vi.importActual<typeof import('node:fs')>('node:fs');
  const mkdirSync = ((path: fs.PathLike, options?: unknown) => {
    if (refusal.under !== undefined && String(path).startsWith(`${refusal.under}/run-`))
      throw Object.assign(new Error(`ENOSPC: no space left on device, mkdir '${String(path)}'`), {
        code: 'ENOSPC',
      });
    return real.mkdirSync(path, options as never);
  }) as typeof fs.mkdirSync;
  return { ...real, default: { ...real, mkdirSync }, mkdirSync };
});

const support = sandboxWorks ? detectSandboxSupport() : undefined;
const cgroupHost = support?.available === true && support.processLimit === 'cgroup';
const isRoot = process.getuid?.() === 0;

// Forks 40 short-lived children (or as many as the cap lets it) and prints how many it started.
const storm =
  'python3 -c "\nimport os, time\nn = 0\ntry:\n    while n < 40:\n        if os.fork() == 0:\n            time.sleep(2)\n            os._exit(0)\n        n += 1\nexcept OSError:\n    pass\nprint(n)"';

describe.runIf(cgroupHost)('sandbox runtime: a run cgroup the host refuses', () => {
  const fixtures: { dispose(): void }[] = [];
  afterAll(() => {
    refusal.under = undefined;
    for (const fixture of fixtures) fixture.dispose();
  });

  // Separate hierarchies only on cgroup v1: on v2 memory and cpu share the pids folder.
  const ownMemoryFolder = () => {
    const memory = memoryCgroupParent();
    return memory?.version === 1 ? memory.path : undefined;
  };

  it.runIf(isRoot && ownMemoryFolder() !== undefined)(
    "keeps the process cap when the memory hierarchy refuses the run's cgroup",
    async () => {
      const fixture = sandboxFixture({ maxProcesses: 13, maxCpus: null });
      fixtures.push(fixture);
      refusal.under = ownMemoryFolder();
      const result = await fixture.run(storm, { timeoutMs: 20_000 });
      refusal.under = undefined;
      expect(result.exitCode).toBe(0);
      expect(Number(result.stdout.trim())).toBeLessThan(13);
    },
    30_000,
  );

  it.runIf(isRoot && cpuCgroupParent() !== undefined && cpuCgroupParent() !== pidsCgroupParent())(
    "keeps the process cap when the cpu hierarchy refuses the run's cgroup",
    async () => {
      const fixture = sandboxFixture({ maxProcesses: 14, maxMemoryBytes: null, maxCpus: 1 });
      fixtures.push(fixture);
      refusal.under = cpuCgroupParent();
      const result = await fixture.run(storm, { timeoutMs: 20_000 });
      refusal.under = undefined;
      expect(result.exitCode).toBe(0);
      expect(Number(result.stdout.trim())).toBeLessThan(14);
      expect(result.warnings.join('\n')).toContain('the CPU limit could not be applied');
    },
    30_000,
  );

  it('says so when the run goes without its process cap', async () => {
    const fixture = sandboxFixture({ maxProcesses: 15, maxMemoryBytes: null, maxCpus: null });
    fixtures.push(fixture);
    refusal.under = pidsCgroupParent();
    const result = await fixture.run('true');
    refusal.under = undefined;
    expect(result.exitCode).toBe(0);
    expect(result.warnings.join('\n')).toContain('the process limit could not be applied');
  });
});

// cgroup v1 refuses a run's CFS quota above the quota of a cgroup above it (EINVAL), where v2 takes
// the smaller: a container given fewer CPUs than `maxCpus` (default 2) on a v1 host, as
// `docker run --cpus 1` or a Kubernetes CPU limit makes one. Writing the caps failed, and with it
// the whole run cgroup: every run went without its process cap.
const cpuV1 = cpuCgroupParentInfo()?.version === 1 ? cpuCgroupParentInfo() : undefined;
describe.runIf(cgroupHost && isRoot && cpuV1 !== undefined)('a run cgroup below a CPU-capped cgroup (v1)', () => {
  const container = join(cpuV1?.path ?? '/', '..', `skillbox-cpu-capped-${process.pid}`);
  afterAll(() => {
    for (const folder of [join(container, 'skillbox'), container]) {
      try {
        fs.rmdirSync(folder);
      } catch {
        // not made, or already gone
      }
    }
  });

  it('keeps the process cap, and the run is held to the smaller CPU share above it', () => {
    fs.mkdirSync(container);
    fs.writeFileSync(join(container, 'cpu.cfs_period_us'), '100000');
    fs.writeFileSync(join(container, 'cpu.cfs_quota_us'), '100000');
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(new URL('../support/run-cgroup-in-cgroup.ts', import.meta.url)),
        container,
        JSON.stringify({ maxProcesses: 21, maxMemoryBytes: null, maxCpus: 2 }),
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(child.stderr).toBe('');
    const got = JSON.parse(child.stdout);
    expect(got).not.toBeNull();
    expect(got.processes).toBe('21');
    expect(got.cpuFolder.startsWith(join(container, 'skillbox'))).toBe(true);
    // Its own quota left unset: the container's one CPU, below the two asked for, holds it.
    expect(got.cpuQuota).toBe('-1');
    expect(got.cpuCapped).toBe(true);
  });
});
