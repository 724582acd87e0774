import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { availableParallelism, hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { validateOptions } from '../config/validate-options.js';
import { createRuntime } from '../runtime/create-runtime.js';
import { RuntimeCommandError } from '../runtime/errors.js';
import { HostWorkspaceFiles } from '../runtime/host-workspace-files.js';
import type { RuntimeProcess, RuntimeProcessCommand } from '../runtime/runtime-process.js';
import type { RuntimeCommand, RuntimeResult, WorkspaceRuntime } from '../runtime/runtime-types.js';
import { validateRuntimeCommand } from '../runtime/validate-command.js';
import type { PlacedTree } from '../runtime/workspace-files.js';
import { defaultSignatureWindowMs, NonceMemory, sha256Hex, verifySignedHeaders } from './request-signature.js';
import type { RunLedger } from './run-ledger.js';
import { RunQueue } from './run-queue.js';
import { WorkerBusyError } from './worker-errors.js';
import { decodeWorkerMessage, encodeWorkerMessage } from './worker-message.js';
import { sandboxWorkerOptionsSchema } from './worker-options-schema.js';
import {
  serializeError,
  type WorkerMethod,
  type WorkerRequest,
  type WorkerResponse,
  workerMethods,
  workerPathPrefix,
} from './worker-protocol.js';
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

const fileOperations = new Set([
  'ensureFolders',
  'makeFolder',
  'inspect',
  'resolve',
  'list',
  'read',
  'put',
  'copy',
  'remove',
  'measure',
]);
/** File operations that may change the workspace: custody hears of each. */
const changingFileOperations = new Set(['ensureFolders', 'makeFolder', 'put', 'copy', 'remove']);

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
  const aborts = new Map<string, AbortController>();
  /** Runs being served, so `close()` can wait for the ones it killed. */
  const serving = new Set<Promise<unknown>>();
  const processes = new Map<string, { process: RuntimeProcess; workspace: string; folder: string }>();

  const runRequest = async (request: WorkerRequest, callerGone: AbortSignal): Promise<RuntimeResult> => {
    const [callId, given] = request.params as [string, RuntimeCommand & { cwd: string }];
    const { name, folder } = await workspaces.open(request.workspace);
    const command = commandOnWorker(given, folder);
    const controller = new AbortController();
    aborts.set(String(callId), controller);
    const running = runs.run({ ...command, abortSignal: controller.signal }, callerGone);
    serving.add(running);
    void running.then(
      () => serving.delete(running),
      () => serving.delete(running),
    );
    try {
      let result = await running;
      try {
        await workspaces.changed(name, folder);
      } catch (error) {
        result = {
          ...result,
          warnings: [...result.warnings, `workspace custody could not record the change: ${(error as Error).message}`],
        };
      }
      return result;
    } finally {
      aborts.delete(String(callId));
    }
  };

  const filesRequest = async (request: WorkerRequest): Promise<unknown> => {
    const operation = request.operation ?? '';
    if (!fileOperations.has(operation)) throw new Error(`unknown file operation "${operation}"`);
    // The agent side sends bytes; a host file named here would be read on the worker's own disk.
    if (operation === 'put' && namesHostFile(request.params[1] as PlacedTree))
      throw new Error('put: the worker takes file contents as bytes, never as host file names');
    const { name, folder } = await workspaces.open(request.workspace);
    const files = new HostWorkspaceFiles(folder);
    const method = (files as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[operation];
    const value = await (method as (...args: unknown[]) => Promise<unknown>).apply(files, request.params);
    if (operation === 'remove' && request.params[0] === '') {
      await rm(folder, { recursive: true, force: true });
      await workspaces.removed(name);
    } else if (changingFileOperations.has(operation)) await workspaces.changed(name, folder);
    return value === undefined ? null : value;
  };

  const processRequest = async (request: WorkerRequest): Promise<unknown> => {
    const operation = request.operation ?? '';
    if (runtime.start === undefined || runtime.stopProcesses === undefined)
      throw new RuntimeCommandError('background', "the worker's runtime cannot run background processes");
    if (operation === 'start') {
      const { name, folder } = await workspaces.open(request.workspace);
      const command = commandOnWorker(request.params[0] as RuntimeProcessCommand, folder);
      const started = await runtime.start(command);
      processes.set(started.id, { process: started, workspace: name, folder });
      void started.exited.then(
        () => workspaces.changed(name, folder).catch(() => undefined),
        () => undefined,
      );
      return started.id;
    }
    if (operation === 'stop') {
      const { name, folder } = await workspaces.open(request.workspace);
      await runtime.stopProcesses(folder);
      // Their handles are no longer asked for: the workspace is being closed or removed.
      for (const [id, held] of processes) if (held.workspace === name) processes.delete(id);
      return null;
    }
    const held = processes.get(String(request.params[0]));
    if (held === undefined) throw new Error(`unknown process "${String(request.params[0])}"`);
    const started = held.process;
    if (operation === 'writeStdin') await started.writeStdin(request.params[1] as Uint8Array);
    else if (operation === 'closeStdin') await started.closeStdin();
    else if (operation === 'read') return started.read(Number(request.params[1]));
    else if (operation === 'kill') return started.kill();
    else if (operation === 'exited') return started.exited;
    else throw new Error(`unknown process operation "${operation}"`);
    return null;
  };

  const dispatch = (method: WorkerMethod, request: WorkerRequest, callerGone: AbortSignal): Promise<unknown> => {
    if (method === 'run') return runRequest(request, callerGone);
    if (method === 'files') return filesRequest(request);
    if (method === 'process') return processRequest(request);
    aborts.get(String(request.params[0]))?.abort();
    return Promise.resolve(null);
  };

  const serve = async (incoming: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = incoming.url ?? '';
    const method = url.startsWith(workerPathPrefix) ? url.slice(workerPathPrefix.length) : '';
    // Nothing is said to an unsigned caller, not even whether the path exists.
    const signed = verifySignedHeaders(
      secret,
      { method: incoming.method ?? '', path: url, headers: incoming.headers },
      windowMs,
    );
    if (signed === undefined || !nonces.remember(signed.nonce, signed.timestampMs)) {
      refuse(incoming, response, 401, 'unauthenticated');
      return;
    }
    if (incoming.method !== 'POST' || !(workerMethods as readonly string[]).includes(method)) {
      refuse(incoming, response, 404, 'no such method');
      return;
    }
    const declared = Number(incoming.headers['content-length'] ?? Number.NaN);
    if (declared > maxRequestBytes) {
      refuse(incoming, response, 413, `request body larger than maxRequestBytes (${maxRequestBytes} bytes)`);
      return;
    }
    const body = await readBody(incoming, maxRequestBytes);
    if (body === undefined) {
      refuse(incoming, response, 413, `request body larger than maxRequestBytes (${maxRequestBytes} bytes)`);
      return;
    }
    if (sha256Hex(body) !== signed.contentSha256) {
      refuse(incoming, response, 401, 'unauthenticated');
      return;
    }
    let request: WorkerRequest;
    try {
      request = decodeWorkerMessage<WorkerRequest>(body);
      if (!Array.isArray(request?.params)) throw new Error('the message has no "params" list');
    } catch (error) {
      refuse(incoming, response, 400, (error as Error).message);
      return;
    }
    const callerGone = new AbortController();
    response.once('close', () => callerGone.abort());
    let reply: WorkerResponse;
    try {
      reply = { ok: true, value: await dispatch(method as WorkerMethod, request, callerGone.signal) };
    } catch (error) {
      if (error instanceof WorkerBusyError) {
        response
          .writeHead(503, { 'retry-after': String(Math.ceil(error.retryAfterMs / 1000)), 'content-type': 'text/plain' })
          .end(error.message);
        return;
      }
      reply = { ok: false, error: serializeError(error) };
    }
    response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(encodeWorkerMessage(reply));
  };

  const server = createServer((incoming, response) => {
    serve(incoming, response).catch((error: unknown) => {
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
      for (const controller of aborts.values()) controller.abort();
      await Promise.allSettled([...serving]);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      for (const { process: started } of processes.values()) await started.kill().catch(() => undefined);
      await options.ledger?.close();
      await options.custody?.close();
      if (ownFolder) await rm(base, { recursive: true, force: true });
    },
  };
}

/**
 * A command as it arrived, placed in the worker's folder: `cwd` came relative to the workspace, and
 * the fields are checked again here (the wire is not the workspace layer), so one that climbs out
 * is refused by name before anything starts. Host paths of the agent side mean nothing here.
 */
function commandOnWorker<Command extends RuntimeCommand | RuntimeProcessCommand>(
  given: Command,
  folder: string,
): Command {
  if (given === null || typeof given !== 'object') throw new RuntimeCommandError('command', 'missing');
  if ((given.readOnlyPaths ?? []).length > 0)
    throw new RuntimeCommandError('readOnlyPaths', 'a sandbox worker cannot show host paths to its commands');
  const { readOnlyPaths: _readOnly, abortSignal: _signal, ...rest } = given as RuntimeCommand;
  const command = {
    ...rest,
    workspaceRoot: folder,
    cwd: path.resolve(folder, typeof given.cwd === 'string' ? given.cwd : ''),
  } as unknown as Command;
  validateRuntimeCommand(command);
  return command;
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

function namesHostFile(tree: PlacedTree): boolean {
  if (tree === null || typeof tree !== 'object') return false;
  if (tree.kind === 'file') return !('data' in tree.content);
  if (tree.kind === 'directory')
    return tree.entries.some((entry) => entry.kind === 'file' && !('data' in entry.content));
  return false;
}

function refuse(incoming: IncomingMessage, response: ServerResponse, status: number, text: string): void {
  // The body is not read: closing the connection keeps an unread upload from being drained.
  response.writeHead(status, { 'content-type': 'text/plain', connection: 'close' }).end(text);
  // Drained for a moment so the caller reads the answer rather than a reset, then cut off: an
  // unread upload is never read to its end.
  incoming.resume();
  response.once('finish', () => setTimeout(() => incoming.socket?.destroy(), 1_000).unref());
}

/** The body, or undefined when it passes `maxBytes` (reading stops there). */
async function readBody(incoming: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
