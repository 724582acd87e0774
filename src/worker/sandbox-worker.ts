import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { validateOptions } from '../config/validate-options.js';
import { nodeHttp } from '../node-http.js';
import { createRuntime } from '../runtime/create-runtime.js';
import { RuntimeCommandError } from '../runtime/errors.js';
import type { WorkspaceRuntime } from '../runtime/runtime-types.js';
import { defaultSignatureWindowMs, NonceMemory } from './request-signature.js';
import type { RunLedger } from './run-ledger.js';
import { RunQueue } from './run-queue.js';
import { refuse, serveWorkerRequest, type WorkerHttpContext } from './worker-http.js';
import { WorkerOperations } from './worker-operations.js';
import { sandboxWorkerOptionsSchema } from './worker-options-schema.js';
import { WorkerRuns } from './worker-runs.js';
import { WorkerWorkspaces } from './worker-workspaces.js';
import type { WorkspaceCustody } from './workspace-custody.js';

/** Options of `createSandboxWorker`. */
export interface SandboxWorkerOptions {
  /** What runs the commands; default `createRuntime({ kind: 'sandbox' })` (bubblewrap, or SandboxUnavailableError). */
  runtime?: WorkspaceRuntime;
  /** The secret shared with every agent worker (at least 32 bytes); it signs each request. */
  secret: string | Uint8Array;
  /** Address to listen on; default `127.0.0.1` (loopback: expose it knowingly). */
  host?: string;
  /** Port to listen on; default 0 (a free one, see `url`). */
  port?: number;
  /** Where the workspaces live; default a new folder under the system's temporary folder, removed by `close()`. */
  workspacesFolder?: string;
  /** This worker's name in the run ledger; default host name, process id and a random part. */
  workerId?: string;
  /** Runs at once; default the number of CPUs. */
  maxConcurrentRuns?: number;
  /** Runs waiting for a turn at most; beyond, the busy answer; default twice `maxConcurrentRuns`. */
  maxQueuedRuns?: number;
  /** How long a run waits for a turn at most before the busy answer; default 30 000 ms. */
  queueWaitMs?: number;
  /** Bytes of one request body at most (a tree to place travels in one); default 256 MiB. */
  maxRequestBytes?: number;
  /** How far a request's timestamp may be from this worker's clock; default 60 000 ms. */
  signatureWindowMs?: number;
  /** Where runs with a `runId` are recorded; without one, run ids are ignored. */
  ledger?: RunLedger;
  /** How long a run's ledger lease lasts unless renewed (a dead worker's runs count as lost after it); default 30 000 ms. */
  runLeaseMs?: number;
  /** Who holds each workspace and where it survives this worker; without, workspaces stay on this worker's disk. */
  custody?: WorkspaceCustody;
}

/** A running sandbox worker. */
export interface SandboxWorker {
  /** Where agent workers reach it (`http://host:port`). */
  readonly url: string;
  readonly workerId: string;
  /** Stops listening, kills background processes, closes ledger and custody, removes a temporary workspaces folder. */
  close(): Promise<void>;
}

export const defaultMaxRequestBytes = 256 * 1024 * 1024;
const defaultQueueWaitMs = 30_000;
const defaultRunLeaseMs = 30_000;

/**
 * Serves skill runs to agent workers over HTTP: every run, file operation and background process
 * of a remote runtime (`createRemoteRuntime`) arrives here as a signed request, runs in this
 * worker's runtime (the bubblewrap sandbox) on this worker's own folders, and goes back as the
 * result. docs/workers.md describes the protocol, the queue, the ledger and custody.
 */
export async function createSandboxWorker(options: SandboxWorkerOptions): Promise<SandboxWorker> {
  validateOptions('createSandboxWorker', sandboxWorkerOptionsSchema, options);
  const runtime = options.runtime ?? createRuntime({ kind: 'sandbox' });
  const secret = typeof options.secret === 'string' ? Buffer.from(options.secret, 'utf8') : Buffer.from(options.secret);
  const maxConcurrentRuns = options.maxConcurrentRuns ?? availableParallelism();
  const queue = new RunQueue({
    maxConcurrentRuns,
    maxQueuedRuns: options.maxQueuedRuns ?? 2 * maxConcurrentRuns,
    queueWaitMs: options.queueWaitMs ?? defaultQueueWaitMs,
  });
  const workerId = options.workerId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const maxRequestBytes = options.maxRequestBytes ?? defaultMaxRequestBytes;
  const windowMs = options.signatureWindowMs ?? defaultSignatureWindowMs;
  const nonces = new NonceMemory(windowMs);
  const ownFolder = options.workspacesFolder === undefined;
  const base = options.workspacesFolder ?? (await mkdtemp(path.join(tmpdir(), 'skillbox-worker-')));
  checkFixedGuestRoot(runtime, base);
  // A takeover waits for a dead holder's lease as long as a run may wait for its turn.
  const workspaces = new WorkerWorkspaces(base, options.custody, options.queueWaitMs ?? defaultQueueWaitMs);
  const runs = new WorkerRuns({
    runtime,
    queue,
    ledger: options.ledger,
    workerId,
    leaseMs: options.runLeaseMs ?? defaultRunLeaseMs,
  });
  const operations = new WorkerOperations(runtime, workspaces, runs);
  const context: WorkerHttpContext = {
    secret,
    windowMs,
    nonces,
    maxRequestBytes,
    dispatch: (method, request, callerGone) => operations.dispatch(method, request, callerGone),
  };
  const server = nodeHttp().createServer((incoming, response) => {
    serveWorkerRequest(incoming, response, context).catch((error: unknown) => {
      if (!response.headersSent) refuse(incoming, response, 500, `worker error: ${(error as Error).message}`);
      else response.destroy();
    });
  });
  // The agent side keeps its connections and closes them itself. With Node's default 5 s
  // keep-alive timeout the server closed a connection idle while another call waited on a 5 s
  // process lifetime, and the client's next call, sent on it as it closed, failed with ECONNRESET.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const host = options.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url,
    workerId,
    async close() {
      // Runs still going are killed and not recorded as finished: to the ledger they are lost, as after a crash.
      runs.shutDown();
      await operations.stopRuns();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await operations.killProcesses();
      await options.ledger?.close();
      await options.custody?.close();
      if (ownFolder) await rm(base, { recursive: true, force: true });
    },
  };
}

/** The runtime must show every workspace at one fixed path, which the agent side builds paths with. */
function checkFixedGuestRoot(runtime: WorkspaceRuntime, base: string): void {
  const one = runtime.guestPath(path.join(base, 'a'), path.join(base, 'a'));
  const other = runtime.guestPath(path.join(base, 'b'), path.join(base, 'b'));
  if (one !== other)
    throw new RuntimeCommandError(
      'runtime',
      `a sandbox worker needs a runtime that shows every workspace at one path (the sandbox's /workspace); "${runtime.kind}" shows each at its host path`,
    );
}
