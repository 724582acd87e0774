import { lstatSync, readdirSync } from 'node:fs';

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
 */
export function procMasks(): ProcMasks {
  if (masks) return masks;
  const files: string[] = [];
  const folders: string[] = [];
  const exists = (path: string): boolean => {
    try {
      lstatSync(path);
      return true;
    } catch {
      return false;
    }
  };
  files.push(...KEY_LISTINGS.filter(exists));
  if (process.getuid?.() === 0) {
    files.push(...KERNEL_STATE_FILES.filter(exists));
    folders.push(...KERNEL_STATE_FOLDERS.filter(exists));
    // Only procfs's own entries: a filesystem mounted inside the host's /proc (binfmt_misc under
    // /proc/sys/fs, a container runtime's masks) is absent from the sandbox's fresh /proc, and a
    // mask over a missing path would stop every sandbox from starting.
    let procDevice: number;
    try {
      procDevice = lstatSync('/proc').dev;
    } catch {
      masks = { files, folders };
      return masks;
    }
    const walk = (folder: string): void => {
      let names: string[];
      try {
        names = readdirSync(folder);
      } catch {
        return;
      }
      for (const name of names) {
        if (folder === '/proc' && (/^\d+$/.test(name) || name === 'self' || name === 'thread-self')) continue;
        const path = `${folder}/${name}`;
        if (path === '/proc/sys/net' || files.includes(path) || folders.includes(path)) continue;
        let status: ReturnType<typeof lstatSync>;
        try {
          status = lstatSync(path);
        } catch {
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
  }
  masks = { files, folders };
  return masks;
}

/** bwrap arguments that mask them; placed after `--proc /proc` and before /proc is sealed read-only. */
export function procMaskArguments(): string[] {
  const { files, folders } = procMasks();
  return [
    ...files.flatMap((file) => ['--ro-bind', '/dev/null', file]),
    ...folders.flatMap((folder) => ['--tmpfs', folder, '--remount-ro', folder]),
  ];
}
