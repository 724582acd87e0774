# Runs inside the sandbox: tries each kernel interface a confined script must not reach and prints
# one JSON object, name -> "ok" (the attempt worked) or the errno name / "killed:<signal>".
# Nothing here changes the host when it works: proc files are opened for writing but never written,
# namespaces are created in a child that exits at once, keys are only looked up.
import ctypes, errno, json, os, platform, signal, socket, sys

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
ARCH = platform.machine()
NUMBERS = {
    'x86_64': dict(clone=56, unshare=272, setns=308, mount=165, umount2=166, pivot_root=155, keyctl=250, add_key=248,
                   request_key=249, ptrace=101, process_vm_readv=310, io_uring_setup=425, bpf=321, perf_event_open=298,
                   userfaultfd=323, open_tree=428, fsopen=430, clone3=435, getpid=39, ioctl=16),
    'aarch64': dict(clone=220, unshare=97, setns=268, mount=40, umount2=39, pivot_root=41, keyctl=219, add_key=217,
                    request_key=218, ptrace=117, process_vm_readv=270, io_uring_setup=425, bpf=280, perf_event_open=241,
                    userfaultfd=282, open_tree=428, fsopen=430, clone3=435, getpid=172, ioctl=29),
}[ARCH]
CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x10000000, 0x20000000, 0x40000000
results = {}


def call(name, *args):
    ctypes.set_errno(0)
    value = libc.syscall(NUMBERS[name], *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return value, ctypes.get_errno()


def verdict(value, err):
    return 'ok' if value >= 0 else errno.errorcode.get(err, str(err))


def in_child(action):
    """Runs action in a forked child; the child's exit tells: 0 worked, 1+errno failed, signal killed."""
    pid = os.fork()
    if pid == 0:
        try:
            os._exit(action())
        except BaseException:
            os._exit(250)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return 'killed:' + signal.Signals(os.WTERMSIG(status)).name
    code = os.WEXITSTATUS(status)
    return 'ok' if code == 0 else errno.errorcode.get(code - 1, str(code))


def as_exit(name, *args):
    value, err = call(name, *args)
    return 0 if value >= 0 else 1 + err


def open_for_write(path):
    try:
        os.close(os.open(path, os.O_WRONLY))
        return 'ok'
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))


# Host kernel settings: writable means a script can point core_pattern at a program the host runs as root.
for path in ['/proc/sys/kernel/core_pattern', '/proc/sys/kernel/modprobe', '/proc/sys/vm/drop_caches',
             '/proc/sys/kernel/hostname', '/proc/sysrq-trigger', '/proc/irq/default_smp_affinity']:
    if os.path.exists(path):
        results['write ' + path] = open_for_write(path)

results['unshare(CLONE_NEWUSER)'] = in_child(lambda: as_exit('unshare', CLONE_NEWUSER))
results['unshare(CLONE_NEWNS)'] = in_child(lambda: as_exit('unshare', CLONE_NEWNS))
results['unshare(CLONE_NEWNET)'] = in_child(lambda: as_exit('unshare', CLONE_NEWNET))


def clone_new_user():
    value, err = call('clone', CLONE_NEWUSER | signal.SIGCHLD, 0, 0, 0, 0)
    if value == 0:
        os._exit(0)
    if value < 0:
        return 1 + err
    os.waitpid(value, 0)
    return 0


results['clone(CLONE_NEWUSER)'] = in_child(clone_new_user)
results['clone3'] = in_child(lambda: as_exit('clone3', 0, 0))
user_ns = os.open('/proc/self/ns/user', os.O_RDONLY)
results['setns'] = in_child(lambda: as_exit('setns', user_ns, 0))
results['mount tmpfs'] = in_child(lambda: 0 if libc.mount(b'none', b'/tmp', b'tmpfs', 0, None) == 0 else 1 + ctypes.get_errno())
results['umount2 /workspace'] = in_child(lambda: as_exit('umount2', ctypes.c_char_p(b'/workspace'), 2))
results['open_tree'] = in_child(lambda: as_exit('open_tree', -100, ctypes.c_char_p(b'/workspace'), 1))
results['fsopen'] = in_child(lambda: as_exit('fsopen', ctypes.c_char_p(b'tmpfs'), 0))
# KEYCTL_GET_KEYRING_ID (0) of KEY_SPEC_SESSION_KEYRING (-3): the host's session keyring when inherited.
results['keyctl session keyring'] = in_child(lambda: as_exit('keyctl', 0, -3, 0))
results['add_key'] = in_child(lambda: as_exit('add_key', ctypes.c_char_p(b'user'), ctypes.c_char_p(b'probe'), ctypes.c_char_p(b'x'), 1, -2))

sleeper = os.fork()
if sleeper == 0:
    import time
    time.sleep(10)
    os._exit(0)
results['ptrace attach'] = in_child(lambda: as_exit('ptrace', 16, sleeper, 0, 0))
buffer = ctypes.create_string_buffer(8)
local = (ctypes.c_void_p * 2)(ctypes.cast(buffer, ctypes.c_void_p), 8)
results['process_vm_readv'] = in_child(lambda: as_exit('process_vm_readv', sleeper, local, 1, local, 1, 0))
os.kill(sleeper, signal.SIGKILL)
os.waitpid(sleeper, 0)

params = ctypes.create_string_buffer(120)
results['io_uring_setup'] = in_child(lambda: as_exit('io_uring_setup', 1, params))
attr = ctypes.create_string_buffer(128)
results['bpf'] = in_child(lambda: as_exit('bpf', 0, attr, 72))
perf = ctypes.create_string_buffer(128)
ctypes.memmove(perf, (ctypes.c_uint32 * 2)(1, 128), 8)  # PERF_TYPE_SOFTWARE, size
results['perf_event_open'] = in_child(lambda: as_exit('perf_event_open', perf, 0, -1, -1, 0))
results['userfaultfd'] = in_child(lambda: as_exit('userfaultfd', 1))  # UFFD_USER_MODE_ONLY
master = os.open('/dev/ptmx', os.O_RDWR | os.O_NOCTTY)
character = ctypes.c_char(b'x')
results['ioctl TIOCSTI'] = in_child(lambda: as_exit('ioctl', master, 0x5412, ctypes.byref(character)))
results['ioctl TIOCLINUX'] = in_child(lambda: as_exit('ioctl', master, 0x541C, ctypes.byref(character)))
if ARCH == 'x86_64':
    # The x32 ABI sets bit 30 of the number: a filter keyed on x86_64 numbers alone would miss it.
    results['x32 getpid'] = in_child(lambda: 0 if libc.syscall(ctypes.c_long(0x40000000 | 39)) >= 0 else 1 + ctypes.get_errno())

# Allowed on purpose: plain fork, threads, and a namespace-free unshare still work.
results['fork'] = in_child(lambda: 0)
results['unshare(0)'] = in_child(lambda: as_exit('unshare', 0))
with open('/proc/self/status') as status:
    fields = dict(line.split(':\t', 1) for line in status.read().splitlines() if ':\t' in line)
results['NoNewPrivs'] = fields.get('NoNewPrivs', '?').strip()
results['CapEff'] = fields.get('CapEff', '?').strip()
results['CapBnd'] = fields.get('CapBnd', '?').strip()
results['Seccomp'] = fields.get('Seccomp', '?').strip()
print(json.dumps(results))
