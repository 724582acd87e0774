import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { hostProbeCache, probeIdentity } from './host-probe-cache.js';

/**
 * Key listings: `/proc/keys` shows the description of every key the reader's uid may view, and the
 * sandbox's uid is the caller's, so it listed the host user's keyrings (keyctl itself is refused,
 * seccomp-policy.ts); `/proc/key-users` shows every uid's key quota. Masked on every host.
 */
const KEY_LISTINGS = ['/proc/keys', '/proc/key-users'];

/**
 * Host kernel state a sandbox run by root would otherwise read, whatever its mode: kernel symbols
 * with their addresses, kernel memory and log, timers and scheduler internals of every process,
 * page tables' counters, the magic SysRq trigger; and folders describing the machine's devices.
 * Container runtimes mask the same (a file under /dev/null, a folder under an empty tmpfs).
 */
const KERNEL_STATE_FILES = [
  '/proc/kallsyms',
  '/proc/kcore',
  '/proc/kmsg',
  '/proc/sched_debug',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/latency_stats',
  '/proc/sysrq-trigger',
  '/proc/kpagecount',
  '/proc/kpageflags',
  '/proc/kpagecgroup',
];
const KERNEL_STATE_FOLDERS = ['/proc/acpi', '/proc/scsi', '/proc/asound'];

export interface ProcMasks {
  /** Files to cover with /dev/null (read-only: reading it is then refused, as for a non-root reader). */
  files: string[];
  /** Folders to cover with an empty read-only tmpfs. */
  folders: string[];
}

let masks: ProcMasks | undefined;

/**
 * What to hide in the sandbox's /proc, found once per process. As root the sandbox is uid 0 to the
 * kernel and a root-only /proc file (mode 0400: slabinfo, vmallocinfo, pagetypeinfo, timer_list, a
 * root-only sysctl) opens by its owner bits, so every entry other users cannot read is masked,
 * found by walking this host's /proc (its kernel decides which exist), plus the kernel state files
 * above. As another user the kernel's own permission checks already refuse those, and only the key
 * listings are masked. Only paths that exist are listed: bubblewrap cannot mount over a missing one.
 * The network sysctls are left out: a sandbox without network has a network namespace of its own,
 * whose /proc/sys/net lacks some of the host's entries, and they hold no secret.
 *
 * The root walk (some 500 entries, 9 ms: most of what a sandbox's first run in a process paid
 * over a local one) is kept across processes by host-probe-cache.ts, under the identity of this
 * boot and the kernel modules loaded, since a module is what adds entries to /proc between boots;
 * the namespaces and user in that identity tell a mount inside /proc apart. A kept answer is used
 * only while every path in it still exists, else the walk runs again.
 */
export function procMasks(): ProcMasks {
  if (masks) return masks;
  const files = KEY_LISTINGS.filter(exists);
  if (process.getuid?.() !== 0) {
    masks = { files, folders: [] };
    return masks;
  }
  // What is masked without a walk: a kept answer that leaves any of it out is not used.
  const fixedFiles = [...files, ...KERNEL_STATE_FILES.filter(exists)];
  const fixedFolders = KERNEL_STATE_FOLDERS.filter(exists);
  const cache = hostProbeCache();
  const identity = procIdentity();
  const kept = cache.get('proc-masks', identity);
  if (
    isProcMasks(kept) &&
    fixedFiles.every((path) => kept.files.includes(path)) &&
    fixedFolders.every((path) => kept.folders.includes(path)) &&
    [...kept.files, ...kept.folders].every(exists)
  ) {
    masks = kept;
    return masks;
  }
  const walked = walkRootMasks(fixedFiles, fixedFolders);
  masks = walked.masks;
  // A walk that could not read part of /proc (out of descriptors, say) serves this process only:
  // kept, its gaps would be every later sandbox's until the next boot or module load.
  if (walked.complete) cache.set('proc-masks', identity, masks);
  return masks;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The root walk; `complete` unless an entry that exists could not be read or looked at. */
function walkRootMasks(fixedFiles: string[], fixedFolders: string[]): { masks: ProcMasks; complete: boolean } {
  const files = [...fixedFiles];
  const folders = [...fixedFolders];
  // Only procfs's own entries: a filesystem mounted inside the host's /proc (binfmt_misc under
  // /proc/sys/fs, a container runtime's masks) is absent from the sandbox's fresh /proc, and a
  // mask over a missing path would stop every sandbox from starting.
  let complete = true;
  // An entry that went away while walking (ENOENT) holds nothing to mask; any other failure leaves a gap.
  const failed = (error: unknown): void => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') complete = false;
  };
  let procDevice: number;
  try {
    procDevice = lstatSync('/proc').dev;
  } catch {
    return { masks: { files, folders }, complete: false };
  }
  const walk = (folder: string): void => {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch (error) {
      failed(error);
      return;
    }
    for (const name of names) {
      if (folder === '/proc' && (/^\d+$/.test(name) || name === 'self' || name === 'thread-self')) continue;
      const path = `${folder}/${name}`;
      if (path === '/proc/sys/net' || files.includes(path) || folders.includes(path)) continue;
      let status: ReturnType<typeof lstatSync>;
      try {
        status = lstatSync(path);
      } catch (error) {
        failed(error);
        continue;
      }
      if (status.dev !== procDevice) continue;
      const othersRead = (status.mode & 0o004) !== 0;
      if (status.isDirectory()) {
        if (!othersRead || (status.mode & 0o001) === 0) folders.push(path);
        else walk(path);
      } else if (status.isFile() && !othersRead) files.push(path);
    }
  };
  walk('/proc');
  return { masks: { files, folders }, complete };
}

/** This boot and its loaded kernel modules, with the host and process identity every probe is kept under. */
function procIdentity(): string {
  const read = (file: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return `${file}:unreadable`;
    }
  };
  // A module's name is its first field; the rest (use counts, addresses) changes without adding entries.
  const modules = read('/proc/modules')
    .split('\n')
    .map((line) => line.split(' ')[0])
    .sort()
    .join(',');
  return createHash('sha256')
    .update([probeIdentity([]), read('/proc/sys/kernel/random/boot_id').trim(), modules].join('\0'))
    .digest('hex');
}

function isProcMasks(value: unknown): value is ProcMasks {
  if (typeof value !== 'object' || value === null) return false;
  const { files, folders } = value as Partial<ProcMasks>;
  const paths = (list: unknown) =>
    Array.isArray(list) &&
    list.every((path) => typeof path === 'string' && path.startsWith('/proc/') && !path.includes('..'));
  return paths(files) && paths(folders);
}

/** bwrap arguments that mask them; placed after `--proc /proc` and before /proc is sealed read-only. */
export function procMaskArguments(): string[] {
  const { files, folders } = procMasks();
  return [
    ...files.flatMap((file) => ['--ro-bind', '/dev/null', file]),
    ...folders.flatMap((folder) => ['--tmpfs', folder, '--remount-ro', folder]),
  ];
}
