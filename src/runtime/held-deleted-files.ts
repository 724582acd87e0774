import { readdirSync, readFileSync, readlinkSync, type Stats, statSync } from 'node:fs';
import { descendantsOf } from './process-tree.js';

/** What processes hold of a filesystem that no name reaches any more. */
export interface HeldDeletedFiles {
  /** Disk in use (allocated blocks, as the quota walk counts), or the mapped length where that is all that can be seen. */
  bytes: number;
  files: number;
}

/**
 * Files on `device` that the processes below `rootPids` (each a sandbox's bubblewrap, so its whole
 * pid namespace) keep alive after their last name was removed: the quota walk goes by names, and a
 * command that opened a file in the workspace, unlinked it and held on kept 100 MiB under a 20 MiB
 * quota. Such a file is reached three ways, each read from /proc: an open descriptor
 * (`/proc/<pid>/fd`), a memory mapping whose descriptor was closed (`/proc/<pid>/maps`) and the
 * program a process runs (`/proc/<pid>/exe`). A descriptor or the program is stat'ed through its
 * /proc link (the real inode, its allocated blocks); a mapping through `/proc/<pid>/map_files`,
 * which the kernel opens to root alone, so on a non-root host a file held only by mappings counts
 * by the length mapped (a lower bound: a window mapped over a larger file counts as the window).
 * Each inode counts once. Not seen: a descriptor in flight in a unix socket (sent, not yet
 * received), which belongs to no process (docs/workspaces.md says so).
 */
export function heldDeletedFiles(rootPids: readonly number[], device: number): HeldDeletedFiles {
  const held = { bytes: 0, files: 0 };
  if (rootPids.length === 0 || process.platform !== 'linux') return held;
  const counted = new Set<number>();
  /** Inodes seen only through mappings whose file could not be stat'ed: offset:length of each window. */
  const windows = new Map<number, Set<string>>();
  const count = (status: Stats | undefined): void => {
    if (status === undefined || !status.isFile() || status.nlink !== 0 || status.dev !== device) return;
    if (counted.has(status.ino)) return;
    counted.add(status.ino);
    held.bytes += status.blocks * 512;
    held.files += 1;
  };
  const { major, minor } = splitDevice(device);
  const mapsDevice = `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}`;
  const pids = new Set<number>();
  for (const root of rootPids) {
    pids.add(root);
    for (const pid of descendantsOf(root)) pids.add(pid);
  }
  for (const pid of pids) {
    const folder = `/proc/${pid}`;
    let descriptors: string[] = [];
    try {
      descriptors = readdirSync(`${folder}/fd`);
    } catch {
      // Exited while we looked, or not readable: nothing of it to count.
    }
    for (const descriptor of descriptors)
      if (deleted(`${folder}/fd/${descriptor}`)) count(stat(`${folder}/fd/${descriptor}`));
    if (deleted(`${folder}/exe`)) count(stat(`${folder}/exe`));
    let maps = '';
    try {
      maps = readFileSync(`${folder}/maps`, 'utf8');
    } catch {
      continue;
    }
    for (const line of maps.split('\n')) {
      if (!line.endsWith(' (deleted)')) continue;
      // start-end perms offset major:minor inode path
      const [range, , offset, lineDevice, inode] = line.split(/\s+/, 5);
      if (lineDevice !== mapsDevice || range === undefined || offset === undefined) continue;
      const ino = Number(inode);
      if (!Number.isFinite(ino) || ino === 0 || counted.has(ino)) continue;
      const status = stat(`${folder}/map_files/${range}`);
      if (status !== undefined) {
        count(status);
        continue;
      }
      const [start, end] = range.split('-').map((part) => Number.parseInt(part, 16)) as [number, number];
      const seen = windows.get(ino) ?? new Set<string>();
      seen.add(`${offset}:${end - start}`);
      windows.set(ino, seen);
    }
  }
  for (const [ino, seen] of windows) {
    if (counted.has(ino)) continue;
    held.files += 1;
    for (const window of seen) held.bytes += Number(window.split(':')[1]);
  }
  return held;
}

/** Whether a /proc link names a file that was deleted (the kernel appends " (deleted)" to its path). */
function deleted(link: string): boolean {
  try {
    return readlinkSync(link).endsWith(' (deleted)');
  } catch {
    return false;
  }
}

function stat(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** glibc's encoding of a dev_t: minor in bits 0-7 and 20-31 (and 44-63), major in 8-19 (and 32-43). */
function splitDevice(device: number): { major: number; minor: number } {
  const low = device % 2 ** 32;
  const high = Math.floor(device / 2 ** 32);
  return {
    major: ((low >>> 8) & 0xfff) | ((high & 0xfffff000) >>> 0),
    minor: (low & 0xff) | ((((low >>> 12) | (high << 20)) & 0xffffff00) >>> 0),
  };
}
