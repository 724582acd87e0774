import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { createRemoteRuntime, type RemoteRuntime } from '../../src/worker/remote-runtime.js';
import { createSandboxWorker, type SandboxWorker, type SandboxWorkerOptions } from '../../src/worker/sandbox-worker.js';

/** One request as it crossed the wire. */
export interface CapturedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A sandbox worker in this process, with its own workspaces folder and a remote runtime holding its secret. */
export interface WorkerFixture {
  worker: SandboxWorker;
  runtime: RemoteRuntime;
  secret: string;
  workspacesFolder: string;
  /** A folder that names a workspace (the agent side's path; it stays empty). */
  workspace: string;
  dispose(): Promise<void>;
}

export async function startWorkerFixture(options: Partial<SandboxWorkerOptions> = {}): Promise<WorkerFixture> {
  const secret = randomBytes(32).toString('hex');
  // Nested in a folder of its own, so a test can see that nothing appears beside it.
  const workspacesFolder = join(mkdtempSync(join(tmpdir(), 'skillbox-worker-attack-')), 'workspaces');
  mkdirSync(workspacesFolder, { mode: 0o700 });
  const workspace = mkdtempSync(join(tmpdir(), 'skillbox-worker-name-'));
  const worker = await createSandboxWorker({
    runtime: createRuntime({ kind: 'sandbox' }),
    secret,
    workspacesFolder,
    ...options,
  });
  const runtime = createRemoteRuntime({ url: worker.url, secret });
  return {
    worker,
    runtime,
    secret,
    workspacesFolder,
    workspace,
    async dispose() {
      await runtime.close();
      await worker.close();
      rmSync(dirname(workspacesFolder), { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/**
 * A man in the middle on loopback: records each request, and either passes it on to the worker
 * (`forward`) or keeps it from arriving (`hold`, answering 502), as someone who captured traffic would.
 */
export async function startCapture(
  target: string,
  mode: 'forward' | 'hold',
): Promise<{ url: string; captured: CapturedRequest[]; close(): Promise<void> }> {
  const captured: CapturedRequest[] = [];
  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const seen: CapturedRequest = {
        method: incoming.method ?? '',
        path: incoming.url ?? '',
        headers: incoming.headers,
        body: Buffer.concat(chunks),
      };
      captured.push(seen);
      if (mode === 'hold') {
        response.writeHead(502).end();
        return;
      }
      void sendRaw(target, seen).then(({ status, headers, body }) => {
        response.writeHead(status, headers).end(body);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    captured,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends a request exactly as given (headers verbatim but for the connection's own). */
export function sendRaw(
  target: string,
  sent: { method: string; path: string; headers: IncomingHttpHeaders; body: Buffer },
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  const url = new URL(target);
  const { host: _host, connection: _connection, ...headers } = sent.headers;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        hostname: url.hostname,
        port: url.port,
        method: sent.method,
        path: sent.path,
        headers: { ...headers, 'content-length': String(sent.body.length) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(sent.body);
  });
}
