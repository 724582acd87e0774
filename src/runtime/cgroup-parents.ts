import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

// Where run cgroups are made: a `skillbox` child of this process's own cgroup in each hierarchy
// whose controller can be used, each found once per process (run-cgroup.ts makes the run folders).

let pidsProbe: { parent: CgroupParent | undefined } | undefined;
let memoryProbe: { parent: CgroupParent | undefined } | undefined;
let cpuProbe: { parent: CgroupParent | undefined } | undefined;

/** A folder run cgroups are made in, and the cgroup version of its hierarchy. */
export interface CgroupParent {
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

/** The cpu parent with its cgroup version (`cpuCgroupParent` gives only the path). */
export function cpuCgroupParentInfo(): CgroupParent | undefined {
  if (pidsCgroupParent() === undefined) return undefined;
  cpuProbe ??= { parent: findParent('cpu', 'cpu.max') ?? findParent('cpu', 'cpu.cfs_quota_us') };
  return cpuProbe.parent;
}

function findParent(controller: 'pids' | 'memory' | 'cpu', controlFile: string): CgroupParent | undefined {
  for (const base of candidateFolders(controller)) {
    const parent = join(base.path, 'skillbox');
    try {
      mkdirSync(parent, { recursive: true });
      if (base.version === 2) {
        try {
          // cgroup v2 hands a controller down only when the parent enables it for its children.
          writeFileSync(join(parent, 'cgroup.subtree_control'), `+${controller}`);
        } catch {
          // not delegated: the look below tells.
        }
      }
      // Told by reading, not by making a child cgroup and removing it: that cost 1–3.5 ms per
      // hierarchy (a memory cgroup of v1 the most) in every process that runs a sandbox, and a
      // `skillbox run` is one such process. A run whose cgroup cannot be made after all (the
      // hierarchy's cgroup count reached) is told at acquire, as before.
      if (!childrenHaveController(parent, base.version, controller, controlFile)) continue;
      if (base.version === 2 && !roomForChild(parent, base.mountPoint)) continue;
      accessSync(parent, constants.W_OK);
      removeStaleRunCgroups(parent);
      return { path: parent, version: base.version };
    } catch {
      // not ours to use (read-only, not delegated, gone): the next hierarchy, or none.
    }
  }
  return undefined;
}

/**
 * Whether a cgroup made in `parent` gets the controller's files. On v1 every cgroup of a hierarchy
 * mounted with the controller has them, as `parent` itself does; on v2 a child has them exactly
 * when its parent lists the controller in `cgroup.subtree_control`.
 */
function childrenHaveController(
  parent: string,
  version: 1 | 2,
  controller: 'pids' | 'memory' | 'cpu',
  controlFile: string,
): boolean {
  if (version === 1) return existsSync(join(parent, controlFile));
  return readFileSync(join(parent, 'cgroup.subtree_control'), 'utf8').trim().split(/\s+/).includes(controller);
}

/**
 * Whether cgroup v2 lets a cgroup be made in `parent`: a writable folder with the controller is not
 * enough where `parent` or a cgroup above it caps the subtree's depth (`cgroup.max.depth`) or its
 * number of live cgroups (`cgroup.max.descendants`, counted in `cgroup.stat`); the kernel then
 * refuses the run's cgroup (EAGAIN), as it refused the probe cgroup made here before. Read from
 * `parent` up to the hierarchy's mount (cgroups above a container's own are not seen; a limit
 * there, or one reached later, is told at acquire). The root cgroup has none of these files.
 */
function roomForChild(parent: string, mountPoint: string): boolean {
  const read = (folder: string, file: string): string | undefined => {
    try {
      return readFileSync(join(folder, file), 'utf8').trim();
    } catch {
      return undefined;
    }
  };
  const limit = (text: string | undefined): number =>
    text === undefined || text === 'max' ? Number.POSITIVE_INFINITY : Number(text);
  for (let folder = parent, level = 1; ; folder = dirname(folder), level += 1) {
    if (level > limit(read(folder, 'cgroup.max.depth'))) return false;
    const descendants = /^nr_descendants (\d+)$/m.exec(read(folder, 'cgroup.stat') ?? '')?.[1];
    if (Number(descendants ?? 0) >= limit(read(folder, 'cgroup.max.descendants'))) return false;
    if (folder === mountPoint || dirname(folder) === folder) return true;
  }
}

/** This process's cgroup in each mounted hierarchy that has (or, for v2, may have) the controller. */
function candidateFolders(controller: 'pids' | 'memory' | 'cpu'): (CgroupParent & { mountPoint: string })[] {
  if (process.platform !== 'linux') return [];
  // Read once for the three controllers: the mounts and this process's cgroups do not change under it.
  processCgroupFiles ??= readProcessCgroupFiles();
  if (processCgroupFiles === null) return [];
  const { mountInfo, membership } = processCgroupFiles;
  const ownPath = (match: (controllers: string[]) => boolean): string | undefined => {
    for (const line of membership.split('\n')) {
      const [, controllers = '', path] = line.split(':');
      if (path !== undefined && match(controllers.split(','))) return path;
    }
    return undefined;
  };
  const folders: (CgroupParent & { mountPoint: string })[] = [];
  for (const line of mountInfo.split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const mountPoint = before.split(' ')[4];
    const [fsType, , superOptions = ''] = after.split(' ');
    if (!mountPoint) continue;
    if (fsType === 'cgroup' && superOptions.split(',').includes(controller)) {
      const own = ownPath((controllers) => controllers.includes(controller));
      if (own !== undefined) folders.push({ path: join(mountPoint, own), version: 1, mountPoint });
    } else if (fsType === 'cgroup2') {
      const own = ownPath((controllers) => controllers.length === 1 && controllers[0] === '');
      if (own !== undefined) folders.push({ path: join(mountPoint, own), version: 2, mountPoint });
    }
  }
  return folders;
}

let processCgroupFiles: { mountInfo: string; membership: string } | null | undefined;

function readProcessCgroupFiles(): { mountInfo: string; membership: string } | null {
  try {
    return {
      mountInfo: readFileSync('/proc/self/mountinfo', 'utf8'),
      membership: readFileSync('/proc/self/cgroup', 'utf8'),
    };
  } catch {
    return null;
  }
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

/** Removes an empty cgroup folder; true when it is gone (already gone included). */
export function tryRemove(path: string): boolean {
  try {
    rmdirSync(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
