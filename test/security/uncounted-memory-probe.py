# Runs inside the sandbox: holds memory that a process's address-space limit (RLIMIT_AS) does not
# count, by one technique named in argv[1], up to argv[2] MiB, printing "held <bytes>" as it grows
# (the memory cgroup of a root host may kill it mid-way) and at the end "refused <errno>" or
# "stopped <errno>" when the kernel said no. Everything it holds goes when the sandbox ends.
import ctypes, errno, os, sys

libc = ctypes.CDLL(None, use_errno=True)
MiB = 1 << 20
technique, target = sys.argv[1], int(sys.argv[2]) * MiB
IPC_PRIVATE, IPC_CREAT, IPC_NOWAIT = 0, 0o1000, 0o4000


def say(*words):
    print(*words, flush=True)


def failure(kind):
    return '%s %s' % (kind, errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno())))


def memfd():
    try:
        fd = os.memfd_create('hold')
    except OSError as error:
        return 'refused ' + errno.errorcode.get(error.errno, str(error.errno))
    chunk, held = b'x' * MiB, 0
    try:
        while held < target:
            held += os.write(fd, chunk)
            if held % (16 * MiB) == 0:
                say('held', held)
    except OSError as error:
        return 'stopped ' + errno.errorcode.get(error.errno, str(error.errno))
    return 'done'


def sysv_shared_memory():
    # A segment outlives its attachment: attach one at a time, fill it, detach, keep it.
    libc.shmat.restype = ctypes.c_void_p
    libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    libc.shmdt.argtypes = [ctypes.c_void_p]
    segment, held = 16 * MiB, 0
    while held < target:
        ctypes.set_errno(0)
        identifier = libc.shmget(IPC_PRIVATE, ctypes.c_size_t(segment), 0o600 | IPC_CREAT)
        if identifier < 0:
            return failure('refused' if held == 0 else 'stopped')
        address = libc.shmat(identifier, None, 0)
        if address is None or address == ctypes.c_void_p(-1).value:
            return failure('stopped')
        ctypes.memset(address, 1, segment)
        libc.shmdt(address)
        held += segment
        say('held', held)
    return 'done'


def sysv_message_queues():
    # Each queue holds up to msgmnb (16 KiB) of messages in kernel memory until it is removed.
    libc.msgsnd.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    text = 8192
    message = ctypes.create_string_buffer(8 + text)
    ctypes.memmove(message, (ctypes.c_long * 1)(1), 8)
    held = 0
    while held < target:
        ctypes.set_errno(0)
        queue = libc.msgget(IPC_PRIVATE, 0o600 | IPC_CREAT)
        if queue < 0:
            return failure('refused' if held == 0 else 'stopped')
        while libc.msgsnd(queue, message, text, IPC_NOWAIT) == 0:
            held += text
            if held % (16 * MiB) == 0:
                say('held', held)
        if ctypes.get_errno() != errno.EAGAIN:
            return failure('stopped')
    return 'done'


say(dict(memfd=memfd, shm=sysv_shared_memory, msg=sysv_message_queues)[technique]())
