import { createHash, randomBytes } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir, release, version } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';

/**
 * Answers about this host that each cost a process start to find: whether bubblewrap can make a
 * sandbox (and size its tmpfs), whether the compiled prelude runs, whether it can join a run's
 * cgroup from inside a sandbox. A long-lived agent asks once; the CLI is a new process per
 * command and asked all three every time, three process starts (two of them whole sandboxes)
 * before the one it was asked to run: most of what `skillbox run --runtime sandbox` cost over
 * `--runtime local` (docs/runtimes.md).
 *
 * Each answer is kept with the identity of everything it depends on: the kernel (release and
 * build), the architecture, the user and group, the namespaces this process runs in (a container
 * or a `unshare` has others), its cgroup, and each program's file (device, inode, size, times). A
 * different identity asks again; so does a cache that is missing, unreadable, malformed, or not
 * this user's alone (owned by another user, or writable by group or others: whoever can write it
 * could make every sandbox start with a wrong answer), or below a folder someone else could write
 * (`privateFolder`). Only the probe's outcome is kept, never a
 * decision about trust: the checks that judge a program (its owner and mode) run every time.
 *
 * The file is `<cache>/skillbox/host-probes.json` (`XDG_CACHE_HOME`, else `~/.cache`); set
 * `SKILLBOX_HOST_PROBES=off` to ask every time.
 */
export interface HostProbeCache {
  /** The answer kept for `probe` under `identity`, if any. */
  get(probe: string, identity: string): unknown;
  set(probe: string, identity: string, answer: unknown): void;
}

/**
 * What a probe's answer depends on, besides the files it names: the host and this process's place
 * in it. Read once per process (four probes ask for it): a process keeps its namespaces, and each
 * probe's answer is kept for the life of the process anyway.
 */
let processIdentityParts: string[] | undefined;
function processIdentity(): string[] {
  processIdentityParts ??= readProcessIdentity();
  return processIdentityParts;
}

function readProcessIdentity(): string[] {
  const namespaces = ['user', 'mnt', 'pid', 'cgroup'].map((name) => {
    try {
      return readlinkSync(`/proc/self/ns/${name}`);
    } catch {
      return `${name}:?`;
    }
  });
  let cgroup = '';
  try {
    cgroup = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    // No /proc: the other facts still key the answer.
  }
  return [
    release(),
    version(),
    process.arch,
    String(process.getuid?.()),
    String(process.getgid?.()),
    ...namespaces,
    cgroup,
  ];
}

/** The identity of a probe over `files` (programs it runs): changes when any of them, or the host, does. */
export function probeIdentity(files: readonly string[]): string {
  const parts = [...processIdentity()];
  for (const file of files) {
    try {
      const stats = statSync(file);
      parts.push(`${file}:${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`);
    } catch {
      parts.push(`${file}:missing`);
    }
  }
  return createHash('sha256').update(parts.join('\0')).digest('hex');
}

function cacheFile(env: NodeJS.ProcessEnv): string | undefined {
  if (env.SKILLBOX_HOST_PROBES === 'off') return undefined;
  const xdg = env.XDG_CACHE_HOME?.trim();
  let home: string;
  try {
    home = homedir();
  } catch {
    return undefined;
  }
  const cacheHome = xdg && isAbsolute(xdg) ? xdg : join(home, '.cache');
  return join(cacheHome, 'skillbox', 'host-probes.json');
}

/** This user's alone: owned by them, not writable by group or others; with `kind`, also of that kind (lstat: a link is not). */
function ownedAlone(path: string, kind?: 'file'): boolean {
  try {
    const stats = lstatSync(path);
    if (kind === 'file' && !stats.isFile()) return false;
    return stats.uid === process.getuid?.() && (stats.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/**
 * Where `folder` really is, when it is this user's alone and every folder above it is this user's
 * or root's and writable by no one else, unless sticky (as /tmp, where what is this user's stays
 * theirs): whoever may write a folder on the way could rename what lies below it away and put
 * there a file of this user's they did not write for it (an output a command chose, say), whose
 * owner and mode then prove nothing. Links on the way are resolved once, here.
 */
function privateFolder(folder: string): string | undefined {
  const uid = process.getuid?.();
  try {
    const real = realpathSync(folder);
    for (let path = real; ; path = dirname(path)) {
      const stats = lstatSync(path);
      if (!stats.isDirectory()) return undefined;
      if (path === real ? !ownedAlone(path) : stats.uid !== uid && stats.uid !== 0) return undefined;
      if ((stats.mode & 0o022) !== 0 && (stats.mode & 0o1000) === 0) return undefined;
      if (dirname(path) === path) return real;
    }
  } catch {
    return undefined;
  }
}

type Entries = Record<string, { identity: string; answer: unknown }>;

function readEntries(file: string): Entries {
  if (!ownedAlone(file, 'file')) return {};
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Entries) : {};
  } catch {
    return {};
  }
}

// What this process read of the cache file, by its path: read once, not once per probe (a
// sandboxed `skillbox run` asks four times, and each read judged every folder up to `/` again).
// What another process writes meanwhile is seen by the next process; `set` keeps this copy current.
const entriesRead = new Map<string, Entries>();

function entriesOf(file: string): Entries {
  let entries = entriesRead.get(file);
  if (entries === undefined) {
    const folder = privateFolder(dirname(file));
    entries = folder === undefined ? {} : readEntries(join(folder, basename(file)));
    entriesRead.set(file, entries);
  }
  return entries;
}

/** The cache for this process (nothing kept where there is no home or it is turned off). */
export function hostProbeCache(env: NodeJS.ProcessEnv = process.env): HostProbeCache {
  const file = cacheFile(env);
  return {
    get(probe, identity) {
      if (file === undefined) return undefined;
      const entry = entriesOf(file)[probe];
      return entry?.identity === identity ? entry.answer : undefined;
    },
    set(probe, identity, answer) {
      if (file === undefined) return;
      let temporary: string | undefined;
      try {
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
        const folder = privateFolder(dirname(file));
        if (folder === undefined) return;
        const target = join(folder, basename(file));
        // Read again: another process may have kept an answer of its own since this one read.
        const entries = readEntries(target);
        entries[probe] = { identity, answer };
        entriesRead.set(file, entries);
        // Written beside and renamed over: two processes probing at once leave one whole file.
        temporary = `${target}.${randomBytes(8).toString('hex')}.tmp`;
        writeFileSync(temporary, JSON.stringify(entries), { mode: 0o600, flag: 'wx' });
        renameSync(temporary, target);
      } catch {
        // A cache that cannot be written only means the next process asks again.
        if (temporary !== undefined) rmSync(temporary, { force: true });
      }
    },
  };
}
