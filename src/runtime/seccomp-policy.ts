import { assembleBpf, type BpfInstruction } from './classic-bpf.js';

/**
 * The system calls a sandboxed command may not make, with their numbers on the two architectures
 * supported (x86_64, aarch64). Each is refused with EPERM, as a kernel without the feature or a
 * process without the privilege would answer, so programs fall back instead of crashing. Why each
 * group is here is written in docs/security.md ("System call filter").
 */
const DENIED: Record<string, { x64: number; arm64: number } | { x64: number }> = {
  // Namespaces: a nested user namespace hands back every capability inside it.
  setns: { x64: 308, arm64: 268 },
  // Mounts, old and new API: changing the view bubblewrap built.
  mount: { x64: 165, arm64: 40 },
  umount2: { x64: 166, arm64: 39 },
  pivot_root: { x64: 155, arm64: 41 },
  chroot: { x64: 161, arm64: 51 },
  open_tree: { x64: 428, arm64: 428 },
  move_mount: { x64: 429, arm64: 429 },
  fsopen: { x64: 430, arm64: 430 },
  fsconfig: { x64: 431, arm64: 431 },
  fsmount: { x64: 432, arm64: 432 },
  fspick: { x64: 433, arm64: 433 },
  mount_setattr: { x64: 442, arm64: 442 },
  open_tree_attr: { x64: 467, arm64: 467 },
  // Kernel keyrings are not namespaced: the session keyring is the host's.
  keyctl: { x64: 250, arm64: 219 },
  add_key: { x64: 248, arm64: 217 },
  request_key: { x64: 249, arm64: 218 },
  // Reading or steering other processes (a same-uid sibling would be fair game otherwise).
  ptrace: { x64: 101, arm64: 117 },
  process_vm_readv: { x64: 310, arm64: 270 },
  process_vm_writev: { x64: 311, arm64: 271 },
  process_madvise: { x64: 440, arm64: 440 },
  pidfd_getfd: { x64: 438, arm64: 438 },
  // Large kernel attack surface a script has no need for.
  io_uring_setup: { x64: 425, arm64: 425 },
  io_uring_enter: { x64: 426, arm64: 426 },
  io_uring_register: { x64: 427, arm64: 427 },
  bpf: { x64: 321, arm64: 280 },
  perf_event_open: { x64: 298, arm64: 241 },
  userfaultfd: { x64: 323, arm64: 282 },
  fanotify_init: { x64: 300, arm64: 262 },
  open_by_handle_at: { x64: 304, arm64: 265 },
  lookup_dcookie: { x64: 212, arm64: 18 },
  // The machine itself: kernel code, power, swap, accounting, clocks, quotas, the kernel log.
  kexec_load: { x64: 246, arm64: 104 },
  kexec_file_load: { x64: 320, arm64: 294 },
  init_module: { x64: 175, arm64: 105 },
  finit_module: { x64: 313, arm64: 273 },
  delete_module: { x64: 176, arm64: 106 },
  reboot: { x64: 169, arm64: 142 },
  swapon: { x64: 167, arm64: 224 },
  swapoff: { x64: 168, arm64: 225 },
  acct: { x64: 163, arm64: 89 },
  settimeofday: { x64: 164, arm64: 170 },
  clock_settime: { x64: 227, arm64: 112 },
  clock_adjtime: { x64: 305, arm64: 266 },
  adjtimex: { x64: 159, arm64: 171 },
  quotactl: { x64: 179, arm64: 60 },
  quotactl_fd: { x64: 443, arm64: 443 },
  syslog: { x64: 103, arm64: 116 },
  vhangup: { x64: 153, arm64: 58 },
  // x86 only: port I/O, the old sysctl call and a.out loading.
  iopl: { x64: 172 },
  ioperm: { x64: 173 },
  uselib: { x64: 134 },
  _sysctl: { x64: 156 },
};

/**
 * Calls that hold memory no address-space limit (RLIMIT_AS) counts: a memfd's pages, a System V
 * shared memory segment and a message queue stay allocated while nothing maps them. A memory
 * cgroup counts them; a run whose memory cap is only RLIMIT_AS (no memory cgroup: a non-root host
 * without a delegated one) held 450 MiB through each under a 128 MiB cap. Such runs get these
 * refused with ENOSYS, as a kernel without memfd or System V IPC answers (libraries test for it
 * and fall back to a file in /dev/shm, which is a sized tmpfs). POSIX shared memory is that file.
 */
const UNCOUNTED_MEMORY: Record<string, { x64: number; arm64: number }> = {
  memfd_create: { x64: 319, arm64: 279 },
  shmget: { x64: 29, arm64: 194 },
  msgget: { x64: 68, arm64: 186 },
};

/** Calls allowed unless an argument asks for what is denied above. */
const CLONE = { x64: 56, arm64: 220 };
const UNSHARE = { x64: 272, arm64: 97 };
const IOCTL = { x64: 16, arm64: 29 };
/**
 * Sockets are allowed by address family, an allow list: unix, inet and inet6 (what programs use to
 * talk to each other and, with `network: true`, to the world), and netlink for NETLINK_ROUTE alone,
 * which getaddrinfo (AI_ADDRCONFIG), getifaddrs, `if_nameindex` and Node's `os.networkInterfaces()`
 * read the interfaces and addresses through. Every other family is refused with EAFNOSUPPORT, as a
 * kernel built without it answers, so programs fall back: vsock above all, which no network
 * namespace separates (one address space for the whole machine, where a hypervisor's guest agent
 * listens), and the families that reach a kernel subsystem rather than a peer (packet, xdp, alg,
 * key, bluetooth, tipc, rds, can, ...), rarely needed and a frequent source of kernel bugs. The
 * other netlink protocols (sock_diag, audit, uevents, generic, netfilter, xfrm, crypto) each open
 * a kernel subsystem of their own: refused with EPROTONOSUPPORT, as the kernel answers an unknown
 * one. socketpair makes connected pairs of unix sockets only (tipc could too; nothing needs it).
 */
const SOCKET = { x64: 41, arm64: 198 };
const SOCKETPAIR = { x64: 53, arm64: 199 };
const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const NETLINK_ROUTE = 0;
/** clone3 passes its flags in memory, which a filter cannot read: refused as unknown (ENOSYS), so libc uses clone. */
const CLONE3 = { x64: 435, arm64: 435 };

/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME. */
export const NEW_NAMESPACE_FLAGS =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080;
/** Push a character into a terminal's input; copy the console / set its modes. */
const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;

const AUDIT_ARCH = { x64: 0xc000003e, arm64: 0xc00000b7 };
/** x86_64 numbers with this bit set are the x32 ABI: the same calls under other numbers. */
const X32_SYSCALL_BIT = 0x40000000;

const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ERRNO = 0x00050000;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const EPERM = 1;
const ENOSYS = 38;
const EPROTONOSUPPORT = 93;
const EAFNOSUPPORT = 97;

// struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]. The low half of an
// argument comes first on these little-endian architectures; the kernel reads clone's and unshare's
// flags, ioctl's request and socket's family and protocol as 32 bits (each an int or unsigned int
// parameter), so the high half cannot smuggle anything past.
const NUMBER_OFFSET = 0;
const ARCH_OFFSET = 4;
const argumentLowWord = (index: number) => 16 + 8 * index;

export type SeccompArchitecture = keyof typeof AUDIT_ARCH;

/** Names of the system calls always refused with EPERM on this architecture (for docs and tests). */
export function deniedSystemCalls(architecture: SeccompArchitecture): string[] {
  return Object.entries(DENIED)
    .filter(([, numbers]) => architecture in numbers)
    .map(([name]) => name);
}

/** Names of the calls refused where a run's memory is capped but no memory cgroup counts it. */
export function uncountedMemoryCalls(): string[] {
  return Object.keys(UNCOUNTED_MEMORY);
}

export interface SeccompPolicyOptions {
  /**
   * Also refuse `memfd_create`, `shmget` and `msgget` (ENOSYS): for a run with a memory cap that
   * only RLIMIT_AS enforces, which does not count what they hold. Default false.
   */
  refuseUncountedMemory?: boolean;
}

const compiled = new Map<string, Buffer>();

/**
 * The compiled filter for this architecture, or undefined where none is written (the sandbox then
 * refuses to start: see sandbox-support.ts). A process of another ABI (32-bit code on a 64-bit
 * host, x32) is killed on its first call: refusing every call with an errno would leave it
 * spinning on a failing exit.
 */
export function seccompFilter(
  architecture: string = process.arch,
  options: SeccompPolicyOptions = {},
): Buffer | undefined {
  if (architecture !== 'x64' && architecture !== 'arm64') return undefined;
  const refuseUncountedMemory = options.refuseUncountedMemory === true;
  const key = `${architecture}:${refuseUncountedMemory}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  const number = (numbers: { x64: number; arm64?: number }) => numbers[architecture] as number;
  const program: BpfInstruction[] = [
    { op: 'load-word', offset: ARCH_OFFSET },
    { op: 'jump-if-equal', value: AUDIT_ARCH[architecture], then: 'native', else: 'kill' },
    { op: 'label', name: 'native' },
    { op: 'load-word', offset: NUMBER_OFFSET },
    ...(architecture === 'x64'
      ? [{ op: 'jump-if-greater-or-equal', value: X32_SYSCALL_BIT, then: 'kill' } as const]
      : []),
    ...Object.values(DENIED)
      .filter((numbers) => architecture in numbers)
      .map((numbers): BpfInstruction => ({ op: 'jump-if-equal', value: number(numbers), then: 'deny' })),
    ...(refuseUncountedMemory ? Object.values(UNCOUNTED_MEMORY) : []).map(
      (numbers): BpfInstruction => ({ op: 'jump-if-equal', value: number(numbers), then: 'unknown' }),
    ),
    { op: 'jump-if-equal', value: number(CLONE), then: 'flags' },
    { op: 'jump-if-equal', value: number(UNSHARE), then: 'flags' },
    { op: 'jump-if-equal', value: number(CLONE3), then: 'unknown' },
    { op: 'jump-if-equal', value: number(IOCTL), then: 'ioctl' },
    { op: 'jump-if-equal', value: number(SOCKET), then: 'socket' },
    { op: 'jump-if-equal', value: number(SOCKETPAIR), then: 'socketpair' },
    { op: 'return', value: SECCOMP_RET_ALLOW },
    { op: 'label', name: 'socket' },
    { op: 'load-word', offset: argumentLowWord(0) },
    { op: 'jump-if-equal', value: AF_UNIX, then: 'allow' },
    { op: 'jump-if-equal', value: AF_INET, then: 'allow' },
    { op: 'jump-if-equal', value: AF_INET6, then: 'allow' },
    { op: 'jump-if-equal', value: AF_NETLINK, then: 'netlink', else: 'no-family' },
    { op: 'label', name: 'netlink' },
    { op: 'load-word', offset: argumentLowWord(2) },
    { op: 'jump-if-equal', value: NETLINK_ROUTE, then: 'allow', else: 'no-protocol' },
    { op: 'label', name: 'socketpair' },
    { op: 'load-word', offset: argumentLowWord(0) },
    { op: 'jump-if-equal', value: AF_UNIX, then: 'allow', else: 'no-family' },
    { op: 'label', name: 'flags' },
    { op: 'load-word', offset: argumentLowWord(0) },
    { op: 'jump-if-any-bit', mask: NEW_NAMESPACE_FLAGS, then: 'deny', else: 'allow' },
    { op: 'label', name: 'ioctl' },
    { op: 'load-word', offset: argumentLowWord(1) },
    { op: 'jump-if-equal', value: TIOCSTI, then: 'deny' },
    { op: 'jump-if-equal', value: TIOCLINUX, then: 'deny', else: 'allow' },
    { op: 'label', name: 'allow' },
    { op: 'return', value: SECCOMP_RET_ALLOW },
    { op: 'label', name: 'deny' },
    { op: 'return', value: SECCOMP_RET_ERRNO | EPERM },
    { op: 'label', name: 'no-family' },
    { op: 'return', value: SECCOMP_RET_ERRNO | EAFNOSUPPORT },
    { op: 'label', name: 'no-protocol' },
    { op: 'return', value: SECCOMP_RET_ERRNO | EPROTONOSUPPORT },
    { op: 'label', name: 'unknown' },
    { op: 'return', value: SECCOMP_RET_ERRNO | ENOSYS },
    { op: 'label', name: 'kill' },
    { op: 'return', value: SECCOMP_RET_KILL_PROCESS },
  ];
  const filter = assembleBpf(program);
  compiled.set(key, filter);
  return filter;
}
