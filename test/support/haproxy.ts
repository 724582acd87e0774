import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real haproxy on loopback in front of several backends, for the failover tests: a backend
 * killed with -9 is taken out within a health-check interval and a request that found it dead is
 * sent to another (`retry-on conn-failure` with `option redispatch`). `http2` speaks HTTP/2 without
 * TLS (h2c) on both sides, as Restate talks to its deployments; otherwise HTTP/1.1.
 */
export interface Haproxy {
  /** The port haproxy listens on, on 127.0.0.1. */
  readonly port: number;
  readonly url: string;
  stop(): Promise<void>;
}

export interface HaproxyOptions {
  backends: readonly number[];
  http2?: boolean;
  /** Milliseconds between health checks of each backend (default 200). */
  checkIntervalMs?: number;
  /** haproxy's `balance` line (default `roundrobin`), e.g. `hdr(x-skillbox-workspace)` to pin workspaces. */
  balance?: string;
}

/** Whether haproxy is installed (`.ci/services.sh` installs it). */
export function haproxyInstalled(): boolean {
  try {
    execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function startHaproxy(options: HaproxyOptions): Promise<Haproxy> {
  const folder = await mkdtemp(join(tmpdir(), 'skillbox-haproxy-'));
  const port = await freePort();
  const interval = options.checkIntervalMs ?? 200;
  const proto = options.http2 === true ? ' proto h2' : '';
  const config = [
    'global',
    '  maxconn 256',
    'defaults',
    '  mode http',
    '  timeout connect 500ms',
    '  timeout client 120s',
    '  timeout server 120s',
    '  retries 3',
    '  option redispatch',
    '  retry-on conn-failure empty-response response-timeout',
    'frontend entry',
    `  bind 127.0.0.1:${port}${proto}`,
    '  default_backend workers',
    'backend workers',
    `  balance ${options.balance ?? 'roundrobin'}`,
    // Hashing places a new workspace; the stick table keeps an existing one where it is when a
    // worker comes back (a rehash would send it to a worker that cannot take it from a live holder).
    ...(options.balance?.startsWith('hdr(') === true
      ? [
          '  hash-type consistent',
          '  stick-table type string len 64 size 100k expire 1h',
          `  stick on ${options.balance}`,
        ]
      : []),
    ...options.backends.map(
      (backend, index) => `  server worker${index} 127.0.0.1:${backend}${proto} check inter ${interval} fall 1 rise 1`,
    ),
    '',
  ].join('\n');
  const file = join(folder, 'haproxy.cfg');
  await writeFile(file, config);
  const child: ChildProcess = spawn('haproxy', ['-f', file, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  await waitForPort(port, child, () => stderr);
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const ended = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await ended;
      }
      await rm(folder, { recursive: true, force: true });
    },
  };
}

/** A port nothing listens on now (the kernel's choice), for a server the test starts next. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject()));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}: ${stderr()}`);
    const open = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(true));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(false)));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`haproxy did not listen on ${port} within 10 s: ${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
