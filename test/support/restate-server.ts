import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The restate-server binary: SKILLBOX_RESTATE_SERVER, else where .ci/services.sh installs it. */
export const restateServerBinary: string =
  process.env.SKILLBOX_RESTATE_SERVER ?? '/opt/skillbox-restate/node_modules/.bin/restate-server';
export const hasRestateServer: boolean = existsSync(restateServerBinary);
/** The one line a skipped test prints. */
export const restateServerMissing = `restate-server not found at ${restateServerBinary}: run bash .ci/services.sh (or set SKILLBOX_RESTATE_SERVER)`;

/** A restate-server on loopback ports with its own data folder. */
export interface RestateServer {
  ingressUrl: string;
  adminUrl: string;
  /** Registers a deployment (an endpoint serving services) by its URL. */
  register(deploymentUrl: string): Promise<void>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts restate-server for a test: loopback only (`--bind-ip`, every bind address), one
 * partition, little RocksDB memory, and retries every 100 ms (capped at 300 ms) so a turn whose
 * worker was killed is picked up quickly by the restarted worker.
 */
export async function startRestateServer(): Promise<RestateServer> {
  const dir = await mkdtemp(join(tmpdir(), 'skillbox-restate-'));
  const [ingress, admin, fabric] = [await freePort(), await freePort(), await freePort()];
  const config = `
base-dir = "${dir}/data"
node-name = "test"
default-num-partitions = 1
rocksdb-total-memory-size = "64.0 MiB"
disable-prometheus = true
log-filter = "warn"

[default-retry-policy]
initial-interval = "100ms"
exponentiation-factor = 1.5
max-attempts = 200
on-max-attempts = "kill"
max-interval = "300ms"

[worker.invoker]
inactivity-timeout = "5s"
abort-timeout = "30s"

[admin]
bind-address = "127.0.0.1:${admin}"

[admin.query-engine]
memory-size = "64.0 MiB"

[ingress]
bind-address = "127.0.0.1:${ingress}"
`;
  await writeFile(join(dir, 'restate.toml'), config);
  const child: ChildProcess = spawn(
    restateServerBinary,
    [
      '--config-file',
      join(dir, 'restate.toml'),
      '--bind-ip',
      '127.0.0.1',
      '--bind-port',
      String(fabric),
      '--listen-mode',
      'tcp',
      '--no-logo',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const adminUrl = `http://127.0.0.1:${admin}`;
  const ingressUrl = `http://127.0.0.1:${ingress}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`restate-server exited (${child.exitCode}): ${stderr}`);
    const healthy = await fetch(`${adminUrl}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`restate-server did not become healthy in 30 s: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    ingressUrl,
    adminUrl,
    async register(deploymentUrl) {
      const response = await fetch(`${adminUrl}/deployments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ uri: deploymentUrl, force: true }),
      });
      if (!response.ok) throw new Error(`registering ${deploymentUrl}: ${response.status} ${await response.text()}`);
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
