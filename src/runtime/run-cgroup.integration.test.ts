import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cpuCgroupParent, memoryCgroupParent, pidsCgroupParent } from './cgroup-parents.js';
import { RunCgroup } from './run-cgroup.js';

// Needs a pids cgroup this process may create children in (root in most containers).
describe.runIf(pidsCgroupParent() !== undefined)('pids cgroup pool', () => {
  it('kills what is left on release and hands the same empty cgroup, cap intact, to the next run', async () => {
    const first = RunCgroup.acquire({ maxProcesses: 17, maxMemoryBytes: null });
    expect(first).toBeDefined();
    const cgroup = first as RunCgroup;
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => sleeper.once('exit', resolve));
    cgroup.add(sleeper.pid as number);
    expect(readFileSync(join(cgroup.path, 'cgroup.procs'), 'utf8').trim()).toBe(String(sleeper.pid));
    await cgroup.release();
    await exited;
    const again = RunCgroup.acquire({ maxProcesses: 17, maxMemoryBytes: null });
    expect(again?.path).toBe(cgroup.path);
    expect(readFileSync(join(cgroup.path, 'pids.max'), 'utf8').trim()).toBe('17');
    expect(readFileSync(join(cgroup.path, 'cgroup.procs'), 'utf8').trim()).toBe('');
    // A different cap never gets a pooled cgroup of another.
    const other = RunCgroup.acquire({ maxProcesses: 18, maxMemoryBytes: null });
    expect(other?.path).not.toBe(cgroup.path);
    await other?.release();
    await again?.release();
  });

  it('writes the caps again on every reuse, so a change made during one run does not carry over', async () => {
    const first = RunCgroup.acquire({ maxProcesses: 19, maxMemoryBytes: null }) as RunCgroup;
    await first.release();
    // What a run that reached its cgroup's files could have done.
    writeFileSync(join(first.path, 'pids.max'), 'max');
    const again = RunCgroup.acquire({ maxProcesses: 19, maxMemoryBytes: null }) as RunCgroup;
    expect(again.path).toBe(first.path);
    expect(readFileSync(join(again.path, 'pids.max'), 'utf8').trim()).toBe('19');
    await again.release();
  });

  it('reports the process cap as hit only for the run that hit it', async () => {
    const cgroup = RunCgroup.acquire({ maxProcesses: 2, maxMemoryBytes: null }) as RunCgroup;
    // Forks three children where the cap leaves room for one, and reaps what it started.
    const program =
      'import os, sys\nsys.stdin.readline()\nstarted = []\nfor _ in range(3):\n    try:\n        pid = os.fork()\n    except OSError:\n        continue\n    if pid == 0:\n        os._exit(0)\n    started.append(pid)\nfor pid in started:\n    os.waitpid(pid, 0)';
    // The distribution's python3 itself: a version manager's shim on PATH (pyenv's is a bash
    // script) forks before python starts, and under this cap bash retries refused forks for 15 s.
    const forker = spawn('/usr/bin/python3', ['-c', program], { stdio: ['pipe', 'ignore', 'ignore'] });
    const exited = new Promise((resolve) => forker.once('exit', resolve));
    cgroup.add(forker.pid as number);
    forker.stdin.end('go\n');
    await exited;
    expect(cgroup.limitsHit()).toEqual(['processes']);
    await cgroup.release();
    const next = RunCgroup.acquire({ maxProcesses: 2, maxMemoryBytes: null }) as RunCgroup;
    expect(next.path).toBe(cgroup.path);
    expect(next.limitsHit()).toEqual([]);
    await next.release();
  });

  it.runIf(cpuCgroupParent() !== undefined)('caps CPU time with the CFS quota', async () => {
    const cgroup = RunCgroup.acquire({ maxProcesses: 17, maxMemoryBytes: null, maxCpus: 0.5 }) as RunCgroup;
    expect(cgroup.cpuCapped).toBe(true);
    const folder = cgroup.cpuPath ?? cgroup.path;
    const quota = existsSync(join(folder, 'cpu.cfs_quota_us'))
      ? readFileSync(join(folder, 'cpu.cfs_quota_us'), 'utf8').trim()
      : readFileSync(join(folder, 'cpu.max'), 'utf8').trim().split(' ')[0];
    expect(quota).toBe('50000');
    await cgroup.release();
  });

  it('moves a process into every hierarchy at once, and a pooled cgroup takes the next run the same way', async () => {
    const limits = { maxProcesses: 23, maxMemoryBytes: 96 * 1024 * 1024, maxCpus: 1 };
    for (let round = 0; round < 2; round += 1) {
      const cgroup = RunCgroup.acquire(limits) as RunCgroup;
      const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
      const exited = new Promise((resolve) => sleeper.once('exit', resolve));
      await cgroup.addInBackground(sleeper.pid as number);
      const folders = [cgroup.path, cgroup.memoryPath, cgroup.cpuPath].filter(
        (folder): folder is string => folder !== undefined,
      );
      for (const folder of folders)
        expect(readFileSync(join(folder, 'cgroup.procs'), 'utf8').trim()).toBe(String(sleeper.pid));
      // The kernel's own view: the process names this cgroup in each of its hierarchies.
      const membership = readFileSync(`/proc/${sleeper.pid}/cgroup`, 'utf8');
      for (const folder of folders) expect(membership).toContain(`/skillbox/${folder.split('/').pop()}\n`);
      await cgroup.release();
      await exited;
    }
  });

  it('lets a single-threaded process join every hierarchy by itself, and what it starts afterwards is born inside', async () => {
    const cgroup = RunCgroup.acquire({ maxProcesses: 29, maxMemoryBytes: 96 * 1024 * 1024, maxCpus: 1 }) as RunCgroup;
    const descriptors = cgroup.membershipDescriptors();
    const folders = [cgroup.path, cgroup.memoryPath, cgroup.cpuPath].filter(
      (folder): folder is string => folder !== undefined,
    );
    // On cgroup v1 the writer moves through `tasks` (no global lock for a thread moving itself).
    descriptors.forEach((descriptor, index) => {
      const folder = folders[index] as string;
      const expected = existsSync(join(folder, 'tasks')) ? 'tasks' : 'cgroup.procs';
      expect(readlinkSync(`/proc/self/fd/${descriptor}`)).toBe(join(folder, expected));
    });
    // dash, as the compiled prelude does: writes "0" to each, then starts a child and waits.
    const joins = descriptors.map((_, index) => `echo 0 >&${3 + index}`).join('; ');
    const shell = spawn('sh', ['-c', `${joins}; exec 3>&- 4>&- 5>&-; sleep 30 & echo started; wait`], {
      stdio: ['ignore', 'pipe', 'ignore', ...descriptors],
    });
    const exited = new Promise((resolve) => shell.once('exit', resolve));
    await new Promise((resolve) => shell.stdout?.once('data', resolve));
    for (const folder of folders) {
      const members = readFileSync(join(folder, 'cgroup.procs'), 'utf8').trim().split('\n').map(Number);
      expect(members).toContain(shell.pid);
      expect(members).toHaveLength(2);
    }
    await cgroup.release();
    await exited;
  });

  it('keeps at most 16 idle cgroups in all, however many different caps runs ask for', async () => {
    for (let cap = 0; cap < 24; cap += 1) {
      const cgroup = RunCgroup.acquire({ maxProcesses: 1000 + cap, maxMemoryBytes: null }) as RunCgroup;
      await cgroup.release();
    }
    const parent = pidsCgroupParent() as string;
    const ours = readdirSync(parent).filter((name) => name.startsWith(`run-${process.pid}-`));
    expect(ours.length).toBeLessThanOrEqual(16);
    // The most recent caps are the ones kept: the last run's cgroup serves the next run with them.
    const last = RunCgroup.acquire({ maxProcesses: 1023, maxMemoryBytes: null }) as RunCgroup;
    expect(ours).toContain(last.path.split('/').pop());
    await last.release();
  });

  it('skips a run folder name another copy of this module in the same process already took', async () => {
    // A dependency installed twice loads this module twice; both count run folders from 1.
    const copy = (await import(
      /* @vite-ignore */ `${new URL('./run-cgroup.ts', import.meta.url).href}?second-copy`
    )) as typeof import('./run-cgroup.js');
    expect(copy.RunCgroup).not.toBe(RunCgroup);
    const limits = { maxProcesses: 29, maxMemoryBytes: null };
    const mine = RunCgroup.acquire(limits) as RunCgroup;
    const theirs = copy.RunCgroup.acquire(limits);
    expect(theirs).toBeDefined();
    expect(theirs?.path).not.toBe(mine.path);
    expect(readFileSync(join(theirs?.path as string, 'pids.max'), 'utf8').trim()).toBe('29');
    await theirs?.release();
    await mine.release();
  });

  it('removes pooled cgroups when the process exits', () => {
    const script = `
      import { RunCgroup } from './src/runtime/run-cgroup.ts';
      const cgroup = RunCgroup.acquire({ maxProcesses: 9, maxMemoryBytes: null });
      await cgroup.release();
      console.log(cgroup.path);
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../../', import.meta.url)),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(child.status).toBe(0);
    const path = child.stdout.trim();
    expect(path).toMatch(/run-\d+-\d+$/);
    expect(existsSync(path)).toBe(false);
  });

  it.runIf(memoryCgroupParent() !== undefined)(
    "sets the memory cap of all the run's processes and pools by both caps",
    async () => {
      const cgroup = RunCgroup.acquire({ maxProcesses: 17, maxMemoryBytes: 64 * 1024 * 1024 }) as RunCgroup;
      expect(cgroup.memoryCapped).toBe(true);
      const folder = cgroup.memoryPath ?? cgroup.path;
      const file = existsSync(join(folder, 'memory.max')) ? 'memory.max' : 'memory.limit_in_bytes';
      expect(readFileSync(join(folder, file), 'utf8').trim()).toBe(String(64 * 1024 * 1024));
      await cgroup.release();
      const other = RunCgroup.acquire({ maxProcesses: 17, maxMemoryBytes: null });
      expect(other?.path).not.toBe(cgroup.path);
      await other?.release();
      const again = RunCgroup.acquire({ maxProcesses: 17, maxMemoryBytes: 64 * 1024 * 1024 });
      expect(again?.path).toBe(cgroup.path);
      await again?.release();
    },
  );
});
