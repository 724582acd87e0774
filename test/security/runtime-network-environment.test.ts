import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../support/services.js';
import { sandboxFixture } from './runtime-fixture.js';

describe.runIf(sandboxWorks)('sandbox runtime: network and environment', () => {
  const fixture = sandboxFixture();
  let server: Server;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    server = createServer((socket) => {
      connections += 1;
      socket.end('hello from the host\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    fixture.dispose();
    await new Promise((resolve) => server.close(resolve));
  });

  const connect = (): string =>
    `python3 -c "import socket; s = socket.create_connection(('127.0.0.1', ${port}), timeout=2); print(s.recv(100).decode(), end='')"`;

  it('cannot reach a server on the host loopback', async () => {
    const result = await fixture.run(connect());
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/ConnectionRefused|Network is unreachable|timed out/);
    expect(connections).toBe(0);
  });

  it('reaches it when the command asks for the network', async () => {
    const result = await fixture.run(connect(), { network: true });
    expect(result).toMatchObject({ stdout: 'hello from the host\n', exitCode: 0 });
    expect(connections).toBe(1);
  });

  it('sees no host environment variable it was not given, not even through /proc', async () => {
    process.env.SKILLBOX_SECURITY_HOST_SECRET = 'do-not-leak-4711';
    try {
      const result = await fixture.run('env; cat /proc/1/environ /proc/self/environ | tr "\\0" "\\n"');
      expect(result.exitCode).toBe(0);
      expect(result.stdout).not.toContain('do-not-leak-4711');
      expect(result.stdout).not.toContain('SKILLBOX_SECURITY_HOST_SECRET');
    } finally {
      delete process.env.SKILLBOX_SECURITY_HOST_SECRET;
    }
  });

  it('sees no host processes', async () => {
    const result = await fixture.run('ls /proc | grep -c "^[0-9]"');
    // bwrap's init, bash, ls and grep (and the subshell): nothing of the host.
    expect(Number(result.stdout.trim())).toBeLessThan(8);
  });
});
