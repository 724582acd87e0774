import { mkdirSync, readFileSync, rmdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A cgroup with the `pids` controller that caps how many processes one run may have. It exists
 * because RLIMIT_NPROC does not bind processes whose real user is host root (the kernel exempts
 * it), and the sandbox keeps the caller's uid so that the workspace stays writable. Available
 * where this process may create cgroups (root in most containers, or a delegated cgroup v2 subtree).
 */
export class PidsCgroup {
  private constructor(readonly path: string) {}

  /** A fresh cgroup limited to `maxProcesses`, or undefined where cgroups cannot be created. */
  static create(maxProcesses: number): PidsCgroup | undefined {
    const parent = pidsCgroupParent();
    if (!parent) return undefined;
    counter += 1;
    const path = join(parent, `run-${process.pid}-${counter}`);
    try {
      mkdirSync(path);
      writeFileSync(join(path, 'pids.max'), String(maxProcesses));
      return new PidsCgroup(path);
    } catch {
      tryRemove(path);
      return undefined;
    }
  }

  add(pid: number): void {
    writeFileSync(join(this.path, 'cgroup.procs'), String(pid));
  }

  /** Kills whatever is still inside, then removes the cgroup (the kernel refuses while tasks remain). */
  async release(): Promise<void> {
    for (let attempt = 0; attempt < 40; attempt += 1) {
      for (const pid of this.members()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // exited meanwhile
        }
      }
      if (tryRemove(this.path)) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  private members(): number[] {
    try {
      return readFileSync(join(this.path, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }
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

function tryRemove(path: string): boolean {
  try {
    rmdirSync(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
