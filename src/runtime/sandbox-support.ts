import { spawnSync } from 'node:child_process';
import { bubblewrapArguments } from './bubblewrap-arguments.js';
import { cpuCgroupParent, memoryCgroupParent, pidsCgroupParent } from './cgroup-parents.js';
import { findExecutable, SYSTEM_PATH } from './find-executable.js';
import { hostProbeCache, probeIdentity } from './host-probe-cache.js';
import { seccompFilter } from './seccomp-policy.js';

/** Whether bubblewrap sandboxes can run on this host, and why not when they cannot. */
export type SandboxSupport =
  | {
      available: true;
      bubblewrapPath: string;
      /** bash in the system folders: the sandbox's prelude (closes inherited descriptors, sets rlimits). */
      bashPath: string;
      /** The compiled seccomp program for this architecture (see seccomp-policy.ts). */
      seccompFilter: Buffer;
      /**
       * How the process cap is enforced: `cgroup` (a pids cgroup per run, binds root too) or
       * `rlimit` (RLIMIT_NPROC only, which the kernel does not apply to host root).
       */
      processLimit: 'cgroup' | 'rlimit';
      /**
       * How memory is capped: `cgroup` (per run, all processes together, plus RLIMIT_AS per process)
       * or `rlimit` (RLIMIT_AS per process only).
       */
      memoryLimit: 'cgroup' | 'rlimit';
      /** Whether a run's CPU time can be capped (a cpu cgroup per run); without one, `maxCpus` is not applied. */
      cpuLimit: 'cgroup' | 'none';
      /** Whether this bubblewrap can size its tmpfs mounts (`--size`, bubblewrap 0.5 and later). */
      sizedTmpfs: boolean;
    }
  | { available: false; reason: string };

const probes = new Map<string, SandboxSupport>();

/**
 * Whether the bubblewrap sandbox works here, found by running `true` in a sandbox with the real
 * mounts (bubblewrap may be installed yet refused user namespaces). Cached per bubblewrap path in
 * the process, and across processes by host-probe-cache.ts: the probe costs a sandbox's start.
 */
export function detectSandboxSupport(options: { bubblewrapPath?: string } = {}): SandboxSupport {
  const key = options.bubblewrapPath ?? '';
  const cached = probes.get(key);
  if (cached) return cached;
  const support = probe(options.bubblewrapPath);
  probes.set(key, support);
  return support;
}

function probe(requestedPath: string | undefined): SandboxSupport {
  if (process.platform !== 'linux')
    return { available: false, reason: `bubblewrap needs Linux, this is ${process.platform}` };
  const bubblewrapPath =
    findExecutable(requestedPath ?? 'bwrap') ?? (requestedPath ? undefined : findExecutable('bwrap', SYSTEM_PATH));
  if (!bubblewrapPath) {
    return {
      available: false,
      reason: requestedPath ? `"${requestedPath}" is not an executable file` : 'bubblewrap (bwrap) is not installed',
    };
  }
  const filter = seccompFilter();
  if (!filter)
    return {
      available: false,
      reason: `the sandbox's system call filter is written for x86_64 and aarch64 only, this is ${process.arch}`,
    };
  const bashPath = findExecutable('bash', SYSTEM_PATH);
  if (!bashPath)
    return { available: false, reason: `no bash in the system folders ${SYSTEM_PATH}: the sandbox's prelude needs it` };
  const truePath = findExecutable('true', SYSTEM_PATH);
  if (!truePath) return { available: false, reason: 'no `true` program found to probe the sandbox with' };
  const run = (sized: boolean) =>
    spawnSync(
      bubblewrapPath,
      [
        ...bubblewrapArguments({
          network: false,
          readOnlyPaths: [],
          ...(sized ? { tmpBytes: 1 << 20, sharedMemoryBytes: 1 << 20 } : {}),
        }),
        truePath,
      ],
      {
        env: {},
        timeout: 10_000,
        encoding: 'utf8',
      },
    );
  // A sandbox made here before, by the same bubblewrap on the same host and namespaces, answers
  // without a process start (host-probe-cache.ts); only a sandbox that worked is remembered.
  const cache = hostProbeCache();
  const identity = probeIdentity([bubblewrapPath, truePath]);
  const remembered = cache.get('bubblewrap', identity) as { sizedTmpfs?: unknown } | undefined;
  let sizedTmpfs: boolean;
  if (typeof remembered?.sizedTmpfs === 'boolean') sizedTmpfs = remembered.sizedTmpfs;
  else {
    let result = run(true);
    sizedTmpfs = !result.error && result.status === 0;
    // An older bubblewrap without --size still sandboxes; only the tmpfs sizes are lost.
    if (!sizedTmpfs) result = run(false);
    if (result.error) return { available: false, reason: `running ${bubblewrapPath} failed: ${result.error.message}` };
    if (result.status !== 0) {
      const detail = (result.stderr || '').trim() || `exit status ${String(result.status ?? result.signal)}`;
      return { available: false, reason: `${bubblewrapPath} cannot create a sandbox here (${detail})` };
    }
    cache.set('bubblewrap', identity, { sizedTmpfs });
  }
  const processLimit = pidsCgroupParent() ? 'cgroup' : 'rlimit';
  const memoryLimit = memoryCgroupParent() ? 'cgroup' : 'rlimit';
  const cpuLimit = cpuCgroupParent() ? 'cgroup' : 'none';
  return {
    available: true,
    bubblewrapPath,
    bashPath,
    seccompFilter: filter,
    processLimit,
    memoryLimit,
    cpuLimit,
    sizedTmpfs,
  };
}
