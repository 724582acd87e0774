import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A cgroup with the `pids` controller that caps how many processes one run may have. It exists
 * because RLIMIT_NPROC does not bind processes whose real user is host root (the kernel exempts
 * it), and the sandbox keeps the caller's uid so that the workspace stays writable. Available
 * where this process may create cgroups (root in most containers, or a delegated cgroup v2 subtree).
 *
 * Creating and removing a cgroup costs the kernel far more than a run's other set-up, so a released
 * cgroup that is truly empty (no member, nothing still charged) goes back to a small pool and serves
 * the next run with the same cap. Pooled cgroups are removed when this process exits; ones left by
 * a process that died are removed the next time a process finds the parent.
 *
 * The cgroup files are read and written synchronously on purpose: they live in kernel memory and
 * answer at once, while the thread pool's round trips (three or four per file) would sit on the
 * run's critical path, between bubblewrap's report and the command's start.
 */
export class PidsCgroup {
  private constructor(
    readonly path: string,
    readonly maxProcesses: number,
  ) {}

  /** An empty cgroup limited to `maxProcesses` (pooled or fresh), or undefined where cgroups cannot be created. */
  static acquire(maxProcesses: number): PidsCgroup | undefined {
    const pooled = idle.get(maxProcesses)?.pop();
    if (pooled) return pooled;
    const parent = pidsCgroupParent();
    if (!parent) return undefined;
    counter += 1;
    const path = join(parent, `run-${process.pid}-${counter}`);
    try {
      mkdirSync(path);
      writeFileSync(join(path, 'pids.max'), String(maxProcesses));
      return new PidsCgroup(path, maxProcesses);
    } catch {
      tryRemove(path);
      return undefined;
    }
  }

  add(pid: number): void {
    writeFileSync(join(this.path, 'cgroup.procs'), String(pid));
  }

  /**
   * Kills whatever is still inside. An empty cgroup whose charge has dropped to zero is pooled;
   * anything else is removed (the kernel refuses while tasks remain, so this retries).
   */
  async release(): Promise<void> {
    for (let attempt = 0; attempt < 40; attempt += 1) {
      const members = this.members();
      for (const pid of members) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // exited meanwhile
        }
      }
      // A zombie not yet reaped is no member but still charged: pooling it would lower the next run's cap.
      if (members.length === 0 && this.charged() === 0 && this.pool()) return;
      if (tryRemove(this.path)) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  private pool(): boolean {
    const list = idle.get(this.maxProcesses) ?? [];
    if (list.length >= maxIdlePerCap) return false;
    list.push(this);
    idle.set(this.maxProcesses, list);
    removeIdleOnExit();
    return true;
  }

  private members(): number[] {
    try {
      return readFileSync(join(this.path, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }

  private charged(): number {
    try {
      return Number(readFileSync(join(this.path, 'pids.current'), 'utf8').trim());
    } catch {
      return Number.NaN;
    }
  }
}

/** Idle cgroups kept per cap: enough for a few concurrent runs, few enough to leave no clutter. */
const maxIdlePerCap = 8;
const idle = new Map<number, PidsCgroup[]>();
let exitHookInstalled = false;

function removeIdleOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous; rmdir of an empty cgroup is a single quick call.
  process.once('exit', () => {
    for (const list of idle.values()) for (const cgroup of list) tryRemove(cgroup.path);
    idle.clear();
  });
}

let counter = 0;
let parentProbe: { path: string | undefined } | undefined;

/** The folder run cgroups are made in, found once: a `skillbox` child of this process's own pids cgroup. */
export function pidsCgroupParent(): string | undefined {
  if (parentProbe) return parentProbe.path;
  parentProbe = { path: undefined };
  for (const base of candidateFolders()) {
    const parent = join(base, 'skillbox');
    const probe = join(parent, `probe-${process.pid}`);
    try {
      mkdirSync(parent, { recursive: true });
      try {
        // cgroup v2 hands the controller down only when the parent enables it for its children.
        writeFileSync(join(parent, 'cgroup.subtree_control'), '+pids');
      } catch {
        // cgroup v1, or v2 without pids delegated: the probe below tells.
      }
      mkdirSync(probe);
      const works = existsSync(join(probe, 'pids.max'));
      tryRemove(probe);
      if (works) {
        parentProbe = { path: parent };
        removeStaleRunCgroups(parent);
        break;
      }
    } catch {
      tryRemove(probe);
    }
  }
  return parentProbe.path;
}

/** This process's cgroup in each mounted hierarchy that has (or, for v2, may have) the pids controller. */
function candidateFolders(): string[] {
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
  const folders: string[] = [];
  for (const line of mountInfo.split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const mountPoint = before.split(' ')[4];
    const [fsType, , superOptions = ''] = after.split(' ');
    if (!mountPoint) continue;
    if (fsType === 'cgroup' && superOptions.split(',').includes('pids')) {
      const own = ownPath((controllers) => controllers.includes('pids'));
      if (own !== undefined) folders.push(join(mountPoint, own));
    } else if (fsType === 'cgroup2') {
      const own = ownPath((controllers) => controllers.length === 1 && controllers[0] === '');
      if (own !== undefined) folders.push(join(mountPoint, own));
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
