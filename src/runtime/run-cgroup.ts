import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  write,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { CgroupFile } from './cgroup-file.js';

/** What one run's cgroup caps: processes (always) and, where the memory controller is available, memory. */
export interface RunCgroupLimits {
  /** Processes (and threads) at once; null for no cap. */
  maxProcesses: number | null;
  /** Bytes of memory all the run's processes may use together (page cache and tmpfs included); null for no cap. */
  maxMemoryBytes: number | null;
  /** CPUs' worth of time per wall-clock second for all the run's processes; null (or absent) for no cap. */
  maxCpus?: number | null;
}

/** A cap a run reached, as RuntimeResult.limitsHit names it. */
export type RunLimit = 'processes' | 'memory' | 'cpu';

/** The kernel's counts of a cap being reached; they only grow, so a run's share is the difference. */
interface CapCounters {
  processes: number;
  memory: number;
  cpu: number;
}

/** CFS accounting period (the kernel's default): the quota is this many microseconds times the CPUs. */
const CPU_PERIOD_MICROSECONDS = 100_000;

/**
 * A cgroup per run that caps how many processes it may have (`pids`), how much memory they use
 * together (`memory`) and how much CPU time (`cpu`). It exists because RLIMIT_NPROC does not bind processes whose real
 * user is
 * host root (the kernel exempts it) and RLIMIT_AS is per process: 256 processes of 4 GiB each
 * would be no cap at all, and nothing else caps CPU time. The sandbox keeps the caller's uid so
 * that the workspace stays writable.
 * Available where this process may create cgroups (root in most containers, or a delegated cgroup
 * v2 subtree). On cgroup v2 both controllers share one folder; on v1 each has its own hierarchy,
 * so a run has a folder in each and its processes join both.
 *
 * Creating and removing a cgroup costs the kernel far more than a run's other set-up, so a released
 * cgroup that is truly empty (no member, nothing still charged) goes back to a small pool and serves
 * the next run with the same caps. Pooled cgroups are removed when this process exits; ones left by
 * a process that died are removed the next time a process finds the parent.
 *
 * The cgroup files are read and written synchronously on purpose: they live in kernel memory and
 * answer at once, while the thread pool's round trips (three or four per file) would sit on the
 * run's critical path, between bubblewrap's report and the command's start.
 */
export class RunCgroup {
  private constructor(
    /** The folder with `pids.max` (and on v2 `memory.max`). */
    readonly path: string,
    /** The v1 memory folder, when memory is capped in a hierarchy of its own. */
    readonly memoryPath: string | undefined,
    /** The v1 cpu folder, when CPU time is capped in a hierarchy of its own. */
    readonly cpuPath: string | undefined,
    readonly limits: RunCgroupLimits,
    /** Whether the memory cap is in force (false where no memory controller could be used). */
    readonly memoryCapped: boolean,
    /** Whether the CPU cap is in force (false where no cpu controller could be used). */
    readonly cpuCapped: boolean,
  ) {
    this.controls = controlFiles(this);
  }

  /** When this cgroup last went back to the pool (a sequence number), for evicting the oldest. */
  pooledAt = 0;

  /** The counters when this run began. */
  private baseline: CapCounters = { processes: 0, memory: 0, cpu: 0 };

  /** The control files a run reads and writes, each kept open for the cgroup's life (cgroup-file.ts). */
  private readonly controls: ControlFiles;

  /**
   * `cgroup.procs` of each folder, opened once for the cgroup's life: a move is then one write, a
   * single round trip to the thread pool instead of the three of an open, a write and a close.
   */
  private membershipFiles: number[] | undefined;

  /** The files the compiled prelude joins through (see `membershipDescriptors`), opened once. */
  private selfJoinFiles: number[] | undefined;

  /** An empty cgroup with these caps (pooled or fresh), or undefined where cgroups cannot be created. */
  static acquire(limits: RunCgroupLimits): RunCgroup | undefined {
    const pooled = takeIdle(poolKey(limits));
    if (pooled) {
      // Written again on every reuse: whatever a run managed to change must not carry over to the next.
      try {
        pooled.applyCaps();
        pooled.baseline = pooled.counters();
        return pooled;
      } catch {
        pooled.removeFolders();
      }
    }
    const parent = pidsCgroupParent();
    if (!parent) return undefined;
    const created: string[] = [];
    try {
      const { name, path } = makeRunFolder(parent);
      created.push(path);
      const ownFolder = (controller: CgroupParent | undefined): string | undefined => {
        if (controller === undefined || (controller.version === 2 && controller.path === parent)) return undefined;
        const folder = join(controller.path, name);
        mkdirSync(folder);
        created.push(folder);
        return folder;
      };
      const memory = limits.maxMemoryBytes === null ? undefined : memoryCgroupParent();
      const cpu = (limits.maxCpus ?? null) === null ? undefined : cpuCgroupParentInfo();
      const cgroup = new RunCgroup(
        path,
        ownFolder(memory),
        ownFolder(cpu),
        limits,
        memory !== undefined,
        cpu !== undefined,
      );
      cgroup.applyCaps();
      cgroup.baseline = cgroup.counters();
      return cgroup;
    } catch {
      for (const folder of created.reverse()) tryRemove(folder);
      return undefined;
    }
  }

  private applyCaps(): void {
    const { caps } = this.controls;
    caps.processes.write(String(this.limits.maxProcesses ?? 'max'));
    caps.memory?.write(String(this.limits.maxMemoryBytes));
    if (caps.cpu) {
      const quota = Math.max(1000, Math.round((this.limits.maxCpus as number) * CPU_PERIOD_MICROSECONDS));
      if (caps.cpu.period) {
        caps.cpu.period.write(String(CPU_PERIOD_MICROSECONDS));
        caps.cpu.quota.write(String(quota));
      } else {
        caps.cpu.quota.write(`${quota} ${CPU_PERIOD_MICROSECONDS}`);
      }
    }
  }

  /** The kernel's counts of forks refused, processes killed for memory, and periods throttled. */
  private counters(): CapCounters {
    const { events } = this.controls;
    return {
      processes: eventCount(events.processes, PROCESSES_REFUSED),
      memory: events.memory ? eventCount(events.memory, MEMORY_KILLS) : 0,
      cpu: events.cpu ? eventCount(events.cpu, CPU_THROTTLED) : 0,
    };
  }

  /** The caps this run reached since it acquired the cgroup. */
  limitsHit(): RunLimit[] {
    const now = this.counters();
    return (['processes', 'memory', 'cpu'] as const).filter((limit) => now[limit] > this.baseline[limit]);
  }

  add(pid: number): void {
    for (const file of this.openMembershipFiles()) writeSync(file, String(pid));
  }

  /**
   * `add` on libuv's thread pool, every hierarchy at once, for a process that is starting up
   * meanwhile. The first move into a cgroup after a quiet spell waits for an RCU grace period in
   * the kernel (several milliseconds, more on a loaded host; the moves right after it are quick):
   * started while bubblewrap sets up the sandbox, that wait overlaps the set-up instead of
   * following it.
   */
  async addInBackground(pid: number): Promise<void> {
    const text = String(pid);
    await Promise.all(
      this.openMembershipFiles().map(
        (file) =>
          new Promise<void>((resolve, reject) => write(file, text, (error) => (error ? reject(error) : resolve()))),
      ),
    );
  }

  /**
   * Descriptors, one per hierarchy, for a single-threaded process that joins by itself (the
   * compiled sandbox prelude writes "0" to each). The kernel judges such a write by the credentials
   * of whoever opened the file, so only this process's own children should get them.
   *
   * On cgroup v1 they are `tasks`, which moves the writing thread alone, not `cgroup.procs`. A move
   * of a whole process takes a lock shared by every cgroup (`cgroup_threadgroup_rwsem`), and taking
   * it after a quiet spell of more than about one RCU grace period waits for a grace period: 6 to
   * 16 ms measured here on Linux 6.18, against 0.03 ms for the same move through `tasks`, which
   * the kernel makes without that lock when the writer moves itself. An agent's runs are spaced by
   * model steps, so nearly every run paid the wait, after bubblewrap's set-up and before the
   * command. For a process with one thread (the prelude has one, and what it starts after the move
   * is born inside) moving the thread is moving the process. cgroup v2 moves single threads only
   * inside a threaded subtree, so there it stays `cgroup.procs`.
   */
  membershipDescriptors(): readonly number[] {
    this.selfJoinFiles ??= this.folders().map((folder) => {
      try {
        return openSync(join(folder, 'tasks'), 'w');
      } catch {
        // v2 has no `tasks`; a delegated v1 folder may make only `cgroup.procs` writable.
        return openSync(join(folder, 'cgroup.procs'), 'w');
      }
    });
    return this.selfJoinFiles;
  }

  private openMembershipFiles(): number[] {
    this.membershipFiles ??= this.folders().map((folder) => openSync(join(folder, 'cgroup.procs'), 'w'));
    return this.membershipFiles;
  }

  private closeMembershipFiles(): void {
    for (const file of [...(this.membershipFiles ?? []), ...(this.selfJoinFiles ?? [])]) {
      try {
        closeSync(file);
      } catch {
        // already closed
      }
    }
    this.membershipFiles = undefined;
    this.selfJoinFiles = undefined;
  }

  private folders(): string[] {
    return [
      this.path,
      ...(this.memoryPath === undefined ? [] : [this.memoryPath]),
      ...(this.cpuPath === undefined ? [] : [this.cpuPath]),
    ];
  }

  private removeFolders(): boolean {
    this.closeMembershipFiles();
    for (const file of allControlFiles(this.controls)) file.close();
    return this.folders().every((folder) => tryRemove(folder));
  }

  /**
   * Kills whatever is still inside and gives the cgroup back to the pool once no member is left;
   * one that still has members after that (the kernel has not finished the kills) is removed, which
   * the kernel refuses while tasks remain, so this retries.
   *
   * A member's charge outlives it until its parent reaps it: a zombie is no member but is still
   * counted in pids.current. A sandboxed run leaves none (see sandbox-prelude.ts), but a killed
   * process whose parent is elsewhere (in tests, this very process) is reaped whenever that parent
   * gets to it. Waiting here for that would put an unbounded, load-dependent wait on every run, and
   * the earlier fixed wait lost the cgroup whenever the reaping came later. So the cgroup is pooled
   * at once and `acquire` only hands out an idle cgroup whose charge is back to zero.
   */
  async release(): Promise<void> {
    for (let attempt = 0; attempt < 40; attempt += 1) {
      const members = this.members();
      if (members.length === 0 && this.pool()) return;
      for (const pid of members) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // exited meanwhile
        }
      }
      if (members.length === 0 && this.removeFolders()) return;
      await new Promise((resolve) => setTimeout(resolve, attempt === 0 ? 1 : 25));
    }
  }

  /** Whether nothing is inside and nothing is still charged: only such a cgroup may serve a run. */
  isIdle(): boolean {
    return this.members().length === 0 && this.charged() === 0;
  }

  /** Closes its files and removes its empty folders: an idle cgroup leaving the pool (evicted, or at exit). */
  discard(): void {
    this.removeFolders();
  }

  private pool(): boolean {
    const key = poolKey(this.limits);
    const list = idle.get(key) ?? [];
    if (list.length >= maxIdlePerCap) return false;
    if (idleCount() >= maxIdleTotal) evictOldestIdle();
    this.pooledAt = ++poolSequence;
    list.push(this);
    idle.set(key, list);
    removeIdleOnExit();
    return true;
  }

  private members(): number[] {
    // Opened afresh each time: cgroup v1 keeps the pid list it built for an open cgroup.procs for
    // a second and serves later reads through that descriptor from it, so a kept one misses joins.
    const read = (folder: string): number[] => {
      try {
        return readFileSync(join(folder, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
      } catch {
        return [];
      }
    };
    return [...new Set(this.folders().flatMap(read))];
  }

  private charged(): number {
    try {
      return Number(this.controls.charged.read().trim());
    } catch {
      return Number.NaN;
    }
  }
}

/** What a run's cgroup is capped, counted and checked through, fixed when the cgroup is made. */
interface ControlFiles {
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
function controlFiles(cgroup: RunCgroup): ControlFiles {
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

function allControlFiles(controls: ControlFiles): CgroupFile[] {
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

function poolKey(limits: RunCgroupLimits): string {
  return `${limits.maxProcesses}:${limits.maxMemoryBytes}:${limits.maxCpus ?? null}`;
}

/** Idle cgroups kept per cap: enough for a few concurrent runs, few enough to leave no clutter. */
const maxIdlePerCap = 8;
/**
 * Idle cgroups kept in all: each holds about a dozen open descriptors (its control files and
 * membership files, one set per hierarchy), so a caller that varies the caps from run to run
 * must not be able to pile up pools until the process runs out of descriptors.
 */
const maxIdleTotal = 16;
const idle = new Map<string, RunCgroup[]>();

let poolSequence = 0;

function idleCount(): number {
  let count = 0;
  for (const list of idle.values()) count += list.length;
  return count;
}

/** Removes the idle cgroup pooled longest ago, whatever its caps: recent caps are the likelier to come back. */
function evictOldestIdle(): void {
  let oldest: { list: RunCgroup[]; cgroup: RunCgroup } | undefined;
  for (const list of idle.values())
    for (const cgroup of list)
      if (oldest === undefined || cgroup.pooledAt < oldest.cgroup.pooledAt) oldest = { list, cgroup };
  if (oldest === undefined) return;
  oldest.list.splice(oldest.list.indexOf(oldest.cgroup), 1);
  oldest.cgroup.discard();
}

/** The most recently released idle cgroup with these caps whose charge has dropped to zero. */
function takeIdle(key: string): RunCgroup | undefined {
  const list = idle.get(key);
  if (!list) return undefined;
  for (let index = list.length - 1; index >= 0; index -= 1) {
    const cgroup = list[index] as RunCgroup;
    if (cgroup.isIdle()) {
      list.splice(index, 1);
      return cgroup;
    }
  }
  return undefined;
}
let exitHookInstalled = false;

function removeIdleOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous; rmdir of an empty cgroup is a single quick call.
  process.once('exit', () => {
    for (const list of idle.values()) {
      for (const cgroup of list) cgroup.discard();
    }
    idle.clear();
  });
}

let counter = 0;

/**
 * A new `run-<pid>-<n>` folder. A name already taken is skipped rather than fatal: a second copy of
 * this module in the same process (a dependency installed twice) counts from 1 as well.
 */
function makeRunFolder(parent: string): { name: string; path: string } {
  for (;;) {
    counter += 1;
    const name = `run-${process.pid}-${counter}`;
    const path = join(parent, name);
    try {
      mkdirSync(path);
      return { name, path };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
let pidsProbe: { parent: CgroupParent | undefined } | undefined;
let memoryProbe: { parent: CgroupParent | undefined } | undefined;
let cpuProbe: { parent: CgroupParent | undefined } | undefined;

interface CgroupParent {
  path: string;
  version: 1 | 2;
}

/** The folder run cgroups are made in, found once: a `skillbox` child of this process's own pids cgroup. */
export function pidsCgroupParent(): string | undefined {
  pidsProbe ??= { parent: findParent('pids', 'pids.max') };
  return pidsProbe.parent?.path;
}

/**
 * Where run cgroups get their memory cap, found once: the pids parent itself on cgroup v2 (when
 * the memory controller can be handed down), a `skillbox` child of this process's own memory
 * cgroup on v1; undefined where neither works (then memory is capped per process only).
 */
export function memoryCgroupParent(): CgroupParent | undefined {
  if (pidsCgroupParent() === undefined) return undefined;
  memoryProbe ??= { parent: findParent('memory', 'memory.max') ?? findParent('memory', 'memory.limit_in_bytes') };
  return memoryProbe.parent;
}

/** Where run cgroups get their CPU cap, found like the memory parent; undefined where no cpu controller can be used. */
export function cpuCgroupParent(): string | undefined {
  return cpuCgroupParentInfo()?.path;
}

function cpuCgroupParentInfo(): CgroupParent | undefined {
  if (pidsCgroupParent() === undefined) return undefined;
  cpuProbe ??= { parent: findParent('cpu', 'cpu.max') ?? findParent('cpu', 'cpu.cfs_quota_us') };
  return cpuProbe.parent;
}

function findParent(controller: 'pids' | 'memory' | 'cpu', controlFile: string): CgroupParent | undefined {
  for (const base of candidateFolders(controller)) {
    const parent = join(base.path, 'skillbox');
    const probe = join(parent, `probe-${process.pid}`);
    try {
      mkdirSync(parent, { recursive: true });
      if (base.version === 2) {
        try {
          // cgroup v2 hands a controller down only when the parent enables it for its children.
          writeFileSync(join(parent, 'cgroup.subtree_control'), `+${controller}`);
        } catch {
          // not delegated: the probe below tells.
        }
      }
      mkdirSync(probe);
      const works = existsSync(join(probe, controlFile));
      tryRemove(probe);
      if (works) {
        removeStaleRunCgroups(parent);
        return { path: parent, version: base.version };
      }
    } catch {
      tryRemove(probe);
    }
  }
  return undefined;
}

/** This process's cgroup in each mounted hierarchy that has (or, for v2, may have) the controller. */
function candidateFolders(controller: 'pids' | 'memory' | 'cpu'): CgroupParent[] {
  if (process.platform !== 'linux') return [];
  let mountInfo: string;
  let membership: string;
  try {
    mountInfo = readFileSync('/proc/self/mountinfo', 'utf8');
    membership = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return [];
  }
  const ownPath = (match: (controllers: string[]) => boolean): string | undefined => {
    for (const line of membership.split('\n')) {
      const [, controllers = '', path] = line.split(':');
      if (path !== undefined && match(controllers.split(','))) return path;
    }
    return undefined;
  };
  const folders: CgroupParent[] = [];
  for (const line of mountInfo.split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const mountPoint = before.split(' ')[4];
    const [fsType, , superOptions = ''] = after.split(' ');
    if (!mountPoint) continue;
    if (fsType === 'cgroup' && superOptions.split(',').includes(controller)) {
      const own = ownPath((controllers) => controllers.includes(controller));
      if (own !== undefined) folders.push({ path: join(mountPoint, own), version: 1 });
    } else if (fsType === 'cgroup2') {
      const own = ownPath((controllers) => controllers.length === 1 && controllers[0] === '');
      if (own !== undefined) folders.push({ path: join(mountPoint, own), version: 2 });
    }
  }
  return folders;
}

/** Empty run cgroups of processes that are gone (pooled ones of a process that was killed). */
function removeStaleRunCgroups(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const owner = /^run-(\d+)-\d+$/.exec(name)?.[1];
    if (owner === undefined || Number(owner) === process.pid || processAlive(Number(owner))) continue;
    tryRemove(join(parent, name));
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function tryRemove(path: string): boolean {
  try {
    rmdirSync(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
