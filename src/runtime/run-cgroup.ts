import { closeSync, mkdirSync, openSync, readFileSync, write, writeSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CgroupParent,
  cpuCgroupParentInfo,
  memoryCgroupParent,
  pidsCgroupParent,
  tryRemove,
} from './cgroup-parents.js';
import {
  allControlFiles,
  type CapCounters,
  type ControlFiles,
  controlFiles,
  readCapCounters,
  writeCaps,
} from './run-cgroup-controls.js';
import { offerIdle, takeIdle } from './run-cgroup-pool.js';

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

  /** Whether a hierarchy refused this cgroup's folder: it then lacks a cap it could have had, and is not pooled. */
  private partial = false;

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
    const pooled = takeIdle(limits) as RunCgroup | undefined;
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
      // The run's folder in a hierarchy of its own (v1), or the pids folder itself (v2); undefined
      // where the controller cannot be used. A hierarchy that refuses the folder (v1's memory
      // controller out of cgroup ids, a limit above this process's cgroup that reading the parent
      // did not see) costs its own cap only, never the process cap: that run goes without it, as
      // on a host without the controller, and its cgroup is not pooled.
      let refused = false;
      const ownFolder = (controller: CgroupParent | undefined): { path: string | undefined } | undefined => {
        if (controller === undefined) return undefined;
        if (controller.version === 2 && controller.path === parent) return { path: undefined };
        const folder = join(controller.path, name);
        try {
          mkdirSync(folder);
        } catch {
          refused = true;
          return undefined;
        }
        created.push(folder);
        return { path: folder };
      };
      const memory = ownFolder(limits.maxMemoryBytes === null ? undefined : memoryCgroupParent());
      const cpu = ownFolder((limits.maxCpus ?? null) === null ? undefined : cpuCgroupParentInfo());
      const cgroup = new RunCgroup(path, memory?.path, cpu?.path, limits, memory !== undefined, cpu !== undefined);
      cgroup.partial = refused;
      cgroup.applyCaps();
      cgroup.baseline = cgroup.counters();
      return cgroup;
    } catch {
      for (const folder of created.reverse()) tryRemove(folder);
      return undefined;
    }
  }

  private applyCaps(): void {
    writeCaps(this.controls, this.limits);
  }

  private counters(): CapCounters {
    return readCapCounters(this.controls);
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
    // One made without a cap that was refused only this once would go on serving runs without it.
    return !this.partial && offerIdle(this);
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
