import { spawnSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../support/services.js';
import { sandboxFixture, sleep } from './runtime-fixture.js';

const probeScript = fileURLToPath(new URL('./socket-families-probe.py', import.meta.url));

/** A vsock port no one is likely to hold, different per test process. */
const vsockPort = 40_000 + (process.pid % 20_000);

// A network namespace separates the internet families, unix sockets' abstract names and netlink;
// it does not separate vsock (one address space for the whole machine, where a hypervisor's guest
// agent listens), nor the families that reach kernel subsystems (packet, crypto, bluetooth, ...).
// Every family a command has no need for must fail to open, with or without the network.
describe.runIf(sandboxWorks)('sandbox runtime: socket address families', () => {
  const fixture = sandboxFixture();
  const probes: Record<string, Record<string, string>> = {};

  beforeAll(async () => {
    copyFileSync(probeScript, join(fixture.workspace, 'socket-families-probe.py'));
    for (const network of [false, true]) {
      const result = await fixture.run(`python3 socket-families-probe.py ${vsockPort}`, { network });
      expect(result.stderr).toBe('');
      probes[String(network)] = JSON.parse(result.stdout) as Record<string, string>;
    }
  });
  afterAll(() => fixture.dispose());

  for (const network of [false, true]) {
    describe(`network: ${network}`, () => {
      it('cannot open or bind a vsock socket, which no network namespace separates from the machine', () => {
        const probe = probes[String(network)] as Record<string, string>;
        expect(probe['socket AF_VSOCK']).toBe('EAFNOSUPPORT');
        expect(probe['vsock bind']).toBe('EAFNOSUPPORT');
      });

      it('opens no socket of a family outside unix, inet, inet6 and netlink, by socket or socketpair', () => {
        const probe = probes[String(network)] as Record<string, string>;
        const opened = Object.entries(probe)
          .filter(([name, outcome]) => /^socket(pair)? AF_/.test(name) && outcome === 'ok')
          .map(([name]) => name);
        expect(opened.sort()).toEqual([
          'socket AF_INET',
          'socket AF_INET6',
          'socket AF_NETLINK',
          'socket AF_UNIX',
          'socketpair AF_UNIX',
        ]);
        for (const family of ['AF_PACKET', 'AF_ALG', 'AF_KEY', 'AF_BLUETOOTH', 'AF_XDP', 'AF_TIPC', 'AF_UNUSED_63'])
          expect(probe[`socket ${family}`], family).toBe('EAFNOSUPPORT');
      });

      it('opens netlink for routes and addresses only, not for the other kernel subsystems behind it', () => {
        const probe = probes[String(network)] as Record<string, string>;
        expect(probe['netlink NETLINK_ROUTE']).toBe('ok');
        for (const protocol of [
          'NETLINK_SOCK_DIAG',
          'NETLINK_AUDIT',
          'NETLINK_KOBJECT_UEVENT',
          'NETLINK_GENERIC',
          'NETLINK_NETFILTER',
          'NETLINK_XFRM',
          'NETLINK_CRYPTO',
        ])
          expect(probe[`netlink ${protocol}`], protocol).toBe('EPROTONOSUPPORT');
      });

      it('still lists interfaces and resolves names, which need netlink routes', () => {
        const probe = probes[String(network)] as Record<string, string>;
        expect(probe.if_nameindex).toContain('lo');
        expect(Number(probe['getaddrinfo localhost'])).toBeGreaterThan(0);
      });
    });
  }

  it('still serves and connects over loopback inet and unix sockets', async () => {
    const result = await fixture.run(
      `python3 -c "
import socket, threading
server = socket.socket(); server.bind(('127.0.0.1', 0)); server.listen()
threading.Thread(target=lambda: server.accept()[0].sendall(b'inet'), daemon=True).start()
print(socket.create_connection(server.getsockname()).recv(4).decode())
left, right = socket.socketpair(); left.sendall(b'unix'); print(right.recv(4).decode())
"`,
    );
    expect(result).toMatchObject({ stdout: 'inet\nunix\n', exitCode: 0 });
  });

  it('leaves the host free to bind a vsock port the sandbox tried to hold', async () => {
    // The host side of the attack: while a sandbox held the port, this bind failed with EADDRINUSE.
    const port = vsockPort + 1;
    const holding = fixture.run(
      `python3 -c "
import socket, time
try:
    s = socket.socket(40, socket.SOCK_STREAM); s.bind((0xFFFFFFFF, ${port})); print('held', flush=True)
except OSError as error:
    print(error.strerror, flush=True)
time.sleep(3)"`,
    );
    await sleep(1500);
    const host = spawnSync(
      'python3',
      ['-c', `import socket; s = socket.socket(40, socket.SOCK_STREAM); s.bind((0xFFFFFFFF, ${port})); print('bound')`],
      { encoding: 'utf8' },
    );
    const sandbox = await holding;
    expect(sandbox.stdout).not.toContain('held');
    expect(host.stderr).not.toContain('EADDRINUSE');
    expect(host.stderr + host.stdout).not.toContain('Address already in use');
  });
});
