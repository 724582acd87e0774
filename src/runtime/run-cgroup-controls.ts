import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CgroupFile } from './cgroup-file.js';
import type { RunCgroupLimits } from './run-cgroup.js';

/** The kernel's counts of a cap being reached; they only grow, so a run's share is the difference. */
export interface CapCounters {
  processes: number;
  memory: number;
  cpu: number;
}

/** CFS accounting period (the kernel's default): the quota is this many microseconds times the CPUs. */
const CPU_PERIOD_MICROSECONDS = 100_000;

/** The folders of a run's cgroup and which caps are in force: what its control files are found from. */
export interface CgroupFolders {
  path: string;
  memoryPath: string | undefined;
  cpuPath: string | undefined;
  memoryCapped: boolean;
  cpuCapped: boolean;
}

/** What a run's cgroup is capped, counted and checked through, fixed when the cgroup is made. */
export interface ControlFiles {
  caps: {
    processes: CgroupFile;
    memory: CgroupFile | undefined;
    /** v1 sets period and quota apart; v2 writes both to cpu.max (the quota file then). */
    cpu: { period: CgroupFile | undefined; quota: CgroupFile } | undefined;
  };
  events: { processes: CgroupFile; memory: CgroupFile | undefined; cpu: CgroupFile | undefined };
  /** `pids.current`: what is still charged, zombies included. */
  charged: CgroupFile;
}

/**
 * The files of a new cgroup. Which interface (v1 or v2) each controller has is looked up here,
 * once, not on every reuse: it cannot change while the folder exists.
 */
export function controlFiles(cgroup: CgroupFolders): ControlFiles {
  const file = (folder: string, name: string, access: 'read' | 'write') => new CgroupFile(join(folder, name), access);
  const memoryFolder = cgroup.memoryPath ?? cgroup.path;
  const memoryV1 = cgroup.memoryCapped && existsSync(join(memoryFolder, 'memory.limit_in_bytes'));
  const cpuFolder = cgroup.cpuPath ?? cgroup.path;
  const cpuV1 = cgroup.cpuCapped && existsSync(join(cpuFolder, 'cpu.cfs_quota_us'));
  return {
    caps: {
      processes: file(cgroup.path, 'pids.max', 'write'),
      memory: cgroup.memoryCapped
        ? file(memoryFolder, memoryV1 ? 'memory.limit_in_bytes' : 'memory.max', 'write')
        : undefined,
      cpu: !cgroup.cpuCapped
        ? undefined
        : cpuV1
          ? {
              period: file(cpuFolder, 'cpu.cfs_period_us', 'write'),
              quota: file(cpuFolder, 'cpu.cfs_quota_us', 'write'),
            }
          : { period: undefined, quota: file(cpuFolder, 'cpu.max', 'write') },
    },
    events: {
      processes: file(cgroup.path, 'pids.events', 'read'),
      // Both count the OOM killer's kills as `oom_kill`: v1 in memory.oom_control, v2 in memory.events.
      memory: cgroup.memoryCapped
        ? file(memoryFolder, memoryV1 ? 'memory.oom_control' : 'memory.events', 'read')
        : undefined,
      cpu: cgroup.cpuCapped ? file(cpuFolder, 'cpu.stat', 'read') : undefined,
    },
    charged: file(cgroup.path, 'pids.current', 'read'),
  };
}

/** Every file of `controls`, to close them all. */
export function allControlFiles(controls: ControlFiles): CgroupFile[] {
  const { caps, events } = controls;
  return [
    caps.processes,
    ...(caps.memory ? [caps.memory] : []),
    ...(caps.cpu?.period ? [caps.cpu.period] : []),
    ...(caps.cpu ? [caps.cpu.quota] : []),
    events.processes,
    ...(events.memory ? [events.memory] : []),
    ...(events.cpu ? [events.cpu] : []),
    controls.charged,
  ];
}

const PROCESSES_REFUSED = /^max (\d+)$/m;
const MEMORY_KILLS = /^oom_kill (\d+)$/m;
const CPU_THROTTLED = /^nr_throttled (\d+)$/m;

/** A count from an events file; 0 where the file or the line is missing (an older kernel). */
function eventCount(file: CgroupFile, line: RegExp): number {
  try {
    const match = line.exec(file.read());
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Writes the caps of `limits` to the cgroup's control files. */
export function writeCaps(controls: ControlFiles, limits: RunCgroupLimits): void {
  const { caps } = controls;
  caps.processes.write(String(limits.maxProcesses ?? 'max'));
  caps.memory?.write(String(limits.maxMemoryBytes));
  if (caps.cpu) {
    const quota = Math.max(1000, Math.round((limits.maxCpus as number) * CPU_PERIOD_MICROSECONDS));
    if (caps.cpu.period) {
      caps.cpu.period.write(String(CPU_PERIOD_MICROSECONDS));
      try {
        caps.cpu.quota.write(String(quota));
      } catch (error) {
        // cgroup v1 refuses a quota above one a cgroup higher up has (a container given fewer CPUs,
        // `docker run --cpus 1`), where v2 takes the smaller. That smaller share already holds the
        // run; a failed write here cost the whole run cgroup, process cap included. Unset, so
        // that a quota a run wrote does not carry over to the next.
        if ((error as NodeJS.ErrnoException).code !== 'EINVAL') throw error;
        caps.cpu.quota.write('-1');
      }
    } else {
      caps.cpu.quota.write(`${quota} ${CPU_PERIOD_MICROSECONDS}`);
    }
  }
}

/** The kernel's counts of forks refused, processes killed for memory, and periods throttled. */
export function readCapCounters(controls: ControlFiles): CapCounters {
  const { events } = controls;
  return {
    processes: eventCount(events.processes, PROCESSES_REFUSED),
    memory: events.memory ? eventCount(events.memory, MEMORY_KILLS) : 0,
    cpu: events.cpu ? eventCount(events.cpu, CPU_THROTTLED) : 0,
  };
}
