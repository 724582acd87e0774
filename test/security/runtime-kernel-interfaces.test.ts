import { copyFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxFixture } from './runtime-fixture.js';

const probeScript = fileURLToPath(new URL('./kernel-probe.py', import.meta.url));

// What the kernel would let a confined script do to the host. Each of these was reachable once:
// see docs/security.md for the layer that now stops it.
describe.runIf(process.platform === 'linux')('sandbox runtime: kernel interfaces', () => {
  const fixture = sandboxFixture();
  let probe: Record<string, string>;

  beforeAll(async () => {
    copyFileSync(probeScript, join(fixture.workspace, 'kernel-probe.py'));
    const result = await fixture.run('python3 kernel-probe.py');
    expect(result.stderr).toBe('');
    probe = JSON.parse(result.stdout) as Record<string, string>;
  });
  afterAll(() => fixture.dispose());

  it('cannot change host kernel settings through /proc/sys (core_pattern would run a program as host root)', () => {
    const writes = Object.entries(probe).filter(([name]) => name.startsWith('write '));
    expect(writes.map(([name]) => name)).toContain('write /proc/sys/kernel/core_pattern');
    for (const [name, outcome] of writes) expect(outcome, name).not.toBe('ok');
  });

  it('cannot create nested namespaces, where it would regain every capability', () => {
    for (const name of [
      'unshare(CLONE_NEWUSER)',
      'unshare(CLONE_NEWNS)',
      'unshare(CLONE_NEWNET)',
      'clone(CLONE_NEWUSER)',
      'setns',
    ]) {
      expect(probe[name], name).toBe('EPERM');
    }
    // clone3 keeps its flags in memory a filter cannot read: refused as unknown, so libc falls back to clone.
    expect(probe.clone3).toBe('ENOSYS');
  });

  it('cannot mount, unmount or move mounts', () => {
    for (const name of ['mount tmpfs', 'umount2 /workspace', 'open_tree', 'fsopen'])
      expect(probe[name], name).toBe('EPERM');
  });

  it('cannot reach the host session keyring or add keys', () => {
    expect(probe['keyctl session keyring']).toBe('EPERM');
    expect(probe.add_key).toBe('EPERM');
  });

  it('cannot trace or read the memory of other processes, even its own children', () => {
    expect(probe['ptrace attach']).toBe('EPERM');
    expect(probe.process_vm_readv).toBe('EPERM');
  });

  it('cannot use the kernel interfaces with the largest attack surface', () => {
    for (const name of ['io_uring_setup', 'bpf', 'perf_event_open', 'userfaultfd'])
      expect(probe[name], name).toBe('EPERM');
  });

  it('cannot push input into a terminal (TIOCSTI, TIOCLINUX)', () => {
    expect(probe['ioctl TIOCSTI']).toBe('EPERM');
    expect(probe['ioctl TIOCLINUX']).toBe('EPERM');
  });

  it.runIf(process.arch === 'x64')('cannot slip past the filter through the x32 system call numbers', () => {
    expect(probe['x32 getpid']).toBe('killed:SIGSYS');
  });

  it('still forks, and runs without capabilities or a way to gain them (setuid programs)', () => {
    expect(probe.fork).toBe('ok');
    expect(probe['unshare(0)']).toBe('ok');
    expect(probe).toMatchObject({
      NoNewPrivs: '1',
      CapEff: '0000000000000000',
      CapBnd: '0000000000000000',
      Seccomp: '2',
    });
  });

  it('sees no host devices, no /sys, no kernel memory or log', async () => {
    const result = await fixture.run(
      'ls /dev | sort | tr "\\n" " "; echo; for path in /sys/kernel /proc/kcore /proc/kmsg /dev/mem /dev/kmsg /dev/vda /dev/sda; do (exec 3<"$path") 2>/dev/null && echo "read $path"; done; true',
    );
    const devices = result.stdout.split('\n')[0]?.trim().split(' ') ?? [];
    const harmless = [
      'console',
      'core',
      'fd',
      'full',
      'mqueue',
      'null',
      'ptmx',
      'pts',
      'random',
      'shm',
      'stderr',
      'stdin',
      'stdout',
      'tty',
      'urandom',
      'zero',
    ];
    expect(devices).toContain('null');
    expect(devices.filter((name) => !harmless.includes(name))).toEqual([]);
    expect(result.stdout).not.toMatch(/read \//);
  });
});

describe.runIf(process.platform === 'linux')('sandbox runtime: other processes and sockets of the host', () => {
  const fixture = sandboxFixture();
  const abstractName = `skillbox-abstract-${process.pid}`;
  let server: Server;
  let connections = 0;

  beforeAll(async () => {
    server = createServer(() => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(`\0${abstractName}`, resolve));
  });
  afterAll(() => {
    server.close();
    fixture.dispose();
  });

  it('cannot signal host processes, which its pid namespace does not show', async () => {
    const result = await fixture.run(
      `kill -0 ${process.pid} 2>/dev/null && echo reached; kill -0 1 && echo own-init; ls /proc | grep -c '^[0-9]'`,
    );
    expect(result.stdout).not.toContain('reached');
    expect(Number(result.stdout.trim().split('\n').at(-1))).toBeLessThan(8);
  });

  it('cannot connect to an abstract unix socket of the host without network', async () => {
    const attempt = `python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('\\0${abstractName}'); print('connected')"`;
    const result = await fixture.run(attempt);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('ConnectionRefusedError');
    expect(connections).toBe(0);
  });
});
