import { lstatSync, readlinkSync } from 'node:fs';
import { procMaskArguments } from './proc-masks.js';
import { SANDBOX_PRELUDE_PROGRAM_PATH } from './sandbox-prelude-program.js';

/** Where the workspace appears inside the sandbox. */
export const SANDBOX_WORKSPACE_PATH = '/workspace';

/** Top-level system folders mirrored read-only (or as the same symlink on merged-/usr systems). */
const SYSTEM_FOLDERS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * The parts of /etc programs need to start and behave: dynamic linking, user and group names,
 * name resolution, time zone, locale, TLS trust and Debian's alternatives symlinks.
 *
 * When skillbox runs as root (most containers) the sandboxed process is host root inside its user
 * namespace, so a file readable only by root is readable there whenever its folder is bound: owner
 * permissions match whatever uid the process takes inside. Only entries holding nothing root-only
 * are listed, which is why TLS is bound by its public parts alone (`/etc/ssl/private` and the
 * private keys under `/etc/pki` stay out). shadow, gshadow, sudoers, ssh keys are never mounted.
 */
export const SANDBOX_ETC_FILES = [
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'nsswitch.conf',
  'passwd',
  'group',
  'hosts',
  'host.conf',
  'gai.conf',
  'localtime',
  'timezone',
  'locale.alias',
  'locale.conf',
  'ssl/certs',
  'ssl/openssl.cnf',
  'ca-certificates',
  'ca-certificates.conf',
  'pki/ca-trust',
  'pki/tls/certs',
  'pki/tls/cert.pem',
  'pki/tls/openssl.cnf',
  'crypto-policies',
  'alternatives',
  'mime.types',
  'protocols',
  'services',
  'os-release',
];

/**
 * Host-wide configuration folders inside the mirrored /usr. npm keeps its global config (registry
 * tokens included) in `<prefix>/etc/npmrc`, and its prefix is /usr or /usr/local on most images;
 * other tools follow the same `<prefix>/etc` rule. A sandboxed script has no use for the host's, so
 * each is covered by an empty read-only tmpfs.
 */
export const HIDDEN_SYSTEM_FOLDERS = ['/usr/etc', '/usr/local/etc'];

let systemMounts: string[] | undefined;

/** bwrap arguments for the read-only system paths, computed once from the host's layout. */
export function systemMountArguments(): string[] {
  if (systemMounts) return systemMounts;
  const args: string[] = [];
  for (const folder of SYSTEM_FOLDERS) {
    let isLink: boolean;
    try {
      isLink = lstatSync(folder).isSymbolicLink();
    } catch {
      continue;
    }
    if (isLink) args.push('--symlink', readlinkSync(folder), folder);
    else args.push('--ro-bind', folder, folder);
  }
  for (const name of SANDBOX_ETC_FILES) args.push('--ro-bind-try', `/etc/${name}`, `/etc/${name}`);
  for (const folder of HIDDEN_SYSTEM_FOLDERS) {
    let isFolder: boolean;
    try {
      isFolder = lstatSync(folder).isDirectory() && !lstatSync('/usr').isSymbolicLink();
    } catch {
      continue;
    }
    if (isFolder) args.push('--tmpfs', folder, '--remount-ro', folder);
  }
  systemMounts = args;
  return args;
}

export interface SandboxLayout {
  /** The host workspace, bound read-write at SANDBOX_WORKSPACE_PATH, and the guest path to start in. */
  workspace?: { root: string; cwd: string };
  network: boolean;
  readOnlyPaths: string[];
  /** Size of the private /tmp and of /dev/shm in bytes; null leaves tmpfs's default (half the host's RAM). */
  tmpBytes?: number | null;
  sharedMemoryBytes?: number | null;
  /** The compiled prelude's host path, bound read-only at SANDBOX_PRELUDE_PROGRAM_PATH (sandbox-prelude-program.ts). */
  preludeProgram?: string;
}

/**
 * Everything before the program: namespaces, mounts, and the process settings. The environment is
 * not on this list on purpose: it is handed to bwrap as its own environment (which bwrap passes on
 * unchanged), because command-line arguments are readable by every user on the host.
 */
export function bubblewrapArguments(layout: SandboxLayout): string[] {
  const args = [...fixedPrefix(layout.network, layout.tmpBytes ?? null, layout.sharedMemoryBytes ?? null)];
  for (const path of layout.readOnlyPaths) args.push('--ro-bind', path, path);
  if (layout.workspace)
    args.push('--bind', layout.workspace.root, SANDBOX_WORKSPACE_PATH, '--chdir', layout.workspace.cwd);
  if (layout.preludeProgram !== undefined) args.push('--ro-bind', layout.preludeProgram, SANDBOX_PRELUDE_PROGRAM_PATH);
  // bwrap builds the root on a writable tmpfs; sealing it leaves /workspace and /tmp the only writable places.
  args.push('--remount-ro', '/');
  return args;
}

const fixedPrefixes = new Map<string, readonly string[]>();

/** Namespaces, process settings and system mounts: the same for every run, so built once per setting. */
function fixedPrefix(network: boolean, tmpBytes: number | null, sharedMemoryBytes: number | null): readonly string[] {
  const key = `${network}:${tmpBytes}:${sharedMemoryBytes}`;
  let prefix = fixedPrefixes.get(key);
  if (prefix === undefined) {
    prefix = [
      // --unshare-all asks for a user namespace only "if possible", and as root bubblewrap may skip
      // it: asked for outright, it is always made, so no capability of the host's namespace is held.
      // --disable-userns then forbids nested ones, where a command would get every capability back.
      '--unshare-all',
      '--unshare-user',
      '--disable-userns',
      ...(network ? ['--share-net', '--ro-bind-try', '/etc/resolv.conf', '/etc/resolv.conf'] : []),
      '--die-with-parent',
      '--new-session',
      '--cap-drop',
      'ALL',
      '--hostname',
      'sandbox',
      ...systemMountArguments(),
      // The sandbox's uid is the caller's: host root stays root (uid 0) to the kernel, and /proc/sys
      // checks nothing but that uid, so a writable /proc would let a script set core_pattern (a
      // program the host runs as root). bubblewrap seals /proc/irq and /proc/bus only; the whole
      // mount goes read-only (a script's own /proc/self files included).
      '--proc',
      '/proc',
      // Root-only kernel state (slabinfo, timer_list, key listings, ...): see proc-masks.ts.
      ...procMaskArguments(),
      '--remount-ro',
      '/proc',
      '--dev',
      '/dev',
      // tmpfs without a size may fill half the host's RAM; /dev itself is sealed so that only the
      // sized /dev/shm takes writes (device nodes such as /dev/null still work read-only mounted).
      ...(sharedMemoryBytes === null ? [] : ['--size', String(sharedMemoryBytes)]),
      '--tmpfs',
      '/dev/shm',
      '--remount-ro',
      '/dev',
      ...(tmpBytes === null ? [] : ['--size', String(tmpBytes)]),
      '--tmpfs',
      '/tmp',
    ];
    fixedPrefixes.set(key, prefix);
  }
  return prefix;
}
