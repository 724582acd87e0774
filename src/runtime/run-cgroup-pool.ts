import type { RunCgroupLimits } from './run-cgroup.js';

// The pool of idle run cgroups (run-cgroup.ts says why there is one): a released cgroup that is
// truly empty waits here for the next run with the same caps, and is removed when this process exits.

/** What the pool needs of a cgroup. */
export interface PoolableCgroup {
  readonly limits: RunCgroupLimits;
  /** When it last went back to the pool (a sequence number), for evicting the oldest. */
  pooledAt: number;
  /** Whether nothing is inside and nothing is still charged: only such a cgroup may serve a run. */
  isIdle(): boolean;
  /** Closes its files and removes its empty folders. */
  discard(): void;
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
const idle = new Map<string, PoolableCgroup[]>();

let poolSequence = 0;

function idleCount(): number {
  let count = 0;
  for (const list of idle.values()) count += list.length;
  return count;
}

/** Removes the idle cgroup pooled longest ago, whatever its caps: recent caps are the likelier to come back. */
function evictOldestIdle(): void {
  let oldest: { list: PoolableCgroup[]; cgroup: PoolableCgroup } | undefined;
  for (const list of idle.values())
    for (const cgroup of list)
      if (oldest === undefined || cgroup.pooledAt < oldest.cgroup.pooledAt) oldest = { list, cgroup };
  if (oldest === undefined) return;
  oldest.list.splice(oldest.list.indexOf(oldest.cgroup), 1);
  oldest.cgroup.discard();
}

/** The most recently released idle cgroup with these caps whose charge has dropped to zero. */
export function takeIdle(limits: RunCgroupLimits): PoolableCgroup | undefined {
  const key = poolKey(limits);
  const list = idle.get(key);
  if (!list) return undefined;
  for (let index = list.length - 1; index >= 0; index -= 1) {
    const cgroup = list[index] as PoolableCgroup;
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

/** Keeps `cgroup` for a later run with the same caps; false when its caps' pool is full (the caller removes it). */
export function offerIdle(cgroup: PoolableCgroup): boolean {
  const key = poolKey(cgroup.limits);
  const list = idle.get(key) ?? [];
  if (list.length >= maxIdlePerCap) return false;
  if (idleCount() >= maxIdleTotal) evictOldestIdle();
  cgroup.pooledAt = ++poolSequence;
  list.push(cgroup);
  idle.set(key, list);
  removeIdleOnExit();
  return true;
}
