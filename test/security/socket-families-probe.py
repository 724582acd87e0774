# Runs inside the sandbox: opens a socket of each address family and prints one JSON object,
# family -> "ok" (a socket of it opened, with any of the common types) or the errno name of the
# last refusal. vsock is also bound: a bind that works takes a port in the machine's vsock space,
# which no network namespace separates (a hypervisor's guest agent listens there).
import errno, json, os, socket, sys

FAMILIES = dict(AF_UNIX=1, AF_INET=2, AF_AX25=3, AF_IPX=4, AF_APPLETALK=5, AF_NETROM=6, AF_BRIDGE=7,
                AF_ATMPVC=8, AF_X25=9, AF_INET6=10, AF_ROSE=11, AF_DECnet=12, AF_NETBEUI=13, AF_SECURITY=14,
                AF_KEY=15, AF_NETLINK=16, AF_PACKET=17, AF_ECONET=19, AF_ATMSVC=20, AF_RDS=21, AF_IRDA=23,
                AF_PPPOX=24, AF_WANPIPE=25, AF_LLC=26, AF_IB=27, AF_MPLS=28, AF_CAN=29, AF_TIPC=30,
                AF_BLUETOOTH=31, AF_IUCV=32, AF_RXRPC=33, AF_ISDN=34, AF_PHONET=35, AF_IEEE802154=36,
                AF_CAIF=37, AF_ALG=38, AF_NFC=39, AF_VSOCK=40, AF_KCM=41, AF_QIPCRTR=42, AF_SMC=43, AF_XDP=44,
                AF_MCTP=45, AF_UNUSED_63=63)
TYPES = [socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_RAW, socket.SOCK_SEQPACKET]
results = {}


def attempt(open_one):
    outcome = None
    for kind in TYPES:
        try:
            opened = open_one(kind)
            for each in opened if isinstance(opened, tuple) else [opened]:
                each.close()
            return 'ok'
        except OSError as error:
            outcome = errno.errorcode.get(error.errno, str(error.errno))
    return outcome


for name, family in FAMILIES.items():
    results['socket ' + name] = attempt(lambda kind: socket.socket(family, kind))
    results['socketpair ' + name] = attempt(lambda kind: socket.socketpair(family, kind))

# NETLINK_ROUTE is what address lookups use; the other netlink protocols reach other kernel subsystems.
for name, protocol in dict(NETLINK_ROUTE=0, NETLINK_SOCK_DIAG=4, NETLINK_AUDIT=9, NETLINK_KOBJECT_UEVENT=15,
                           NETLINK_GENERIC=16, NETLINK_NETFILTER=12, NETLINK_XFRM=6, NETLINK_CRYPTO=21).items():
    try:
        socket.socket(16, socket.SOCK_RAW, protocol).close()
        results['netlink ' + name] = 'ok'
    except OSError as error:
        results['netlink ' + name] = errno.errorcode.get(error.errno, str(error.errno))

try:
    vsock = socket.socket(40, socket.SOCK_STREAM)
    vsock.bind((0xFFFFFFFF, int(sys.argv[1])))
    results['vsock bind'] = 'ok'
    vsock.close()
except OSError as error:
    results['vsock bind'] = errno.errorcode.get(error.errno, str(error.errno))

# What programs need from the allowed families keeps working.
results['if_nameindex'] = ','.join(name for _, name in socket.if_nameindex())
try:
    results['getaddrinfo localhost'] = str(len(socket.getaddrinfo('localhost', 80, flags=socket.AI_ADDRCONFIG)))
except OSError as error:
    results['getaddrinfo localhost'] = 'failed: ' + str(error)
print(json.dumps(results))
