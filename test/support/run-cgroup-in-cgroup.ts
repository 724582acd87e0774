// Moves itself into the cgroup v1 folder named by its first argument (in that hierarchy only), as a
// process of a container whose cgroup has caps of its own starts, then acquires a run cgroup with
// the caps given as JSON and prints what it got: started as `node --import tsx <this> <folder> <caps>`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [folder, caps] = process.argv.slice(2) as [string, string];
writeFileSync(join(folder, 'cgroup.procs'), String(process.pid));
const { RunCgroup } = await import('../../src/runtime/run-cgroup.js');
const cgroup = RunCgroup.acquire(JSON.parse(caps));
const read = (path: string | undefined, file: string) =>
  path === undefined ? undefined : readFileSync(join(path, file), 'utf8').trim();
console.log(
  JSON.stringify(
    cgroup === undefined
      ? null
      : {
          processes: read(cgroup.path, 'pids.max'),
          cpuCapped: cgroup.cpuCapped,
          cpuFolder: cgroup.cpuPath,
          cpuQuota: read(cgroup.cpuPath, 'cpu.cfs_quota_us'),
        },
  ),
);
await cgroup?.release();
