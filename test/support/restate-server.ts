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
  /** kill -9 of the server, then a new one on the same ports and data (its journal survives). */
  killAndRestart(): Promise<void>;
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
  const adminUrl = `http://127.0.0.1:${admin}`;
  const ingressUrl = `http://127.0.0.1:${ingress}`;
  let child = await launch(dir, fabric, adminUrl);
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
    async killAndRestart() {
      await killGroup(child, 'SIGKILL');
      child = await launch(dir, fabric, adminUrl);
    },
    async stop() {
      await killGroup(child, 'SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function launch(dir: string, fabric: number, adminUrl: string): Promise<ChildProcess> {
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
    // Its own process group: the npm package's restate-server is a node shim that starts the real
    // binary, and a kill -9 of the shim alone would leave the server running.
    { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir, detached: true },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`restate-server exited (${child.exitCode}): ${stderr}`);
    const healthy = await fetch(`${adminUrl}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return child;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`restate-server did not become healthy in 30 s: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Signals the server's whole process group (shim and binary) and waits for both to be gone. */
async function killGroup(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const pid = child.pid!;
  try {
    process.kill(-pid, signal);
  } catch {
    return; // already gone
  }
  // Bounded: a zombie whose parent does not reap it still answers signal 0.
  for (let waited = 0; waited < 10_000; waited += 50) {
    try {
      process.kill(-pid, waited < 5000 ? 0 : 'SIGKILL');
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
