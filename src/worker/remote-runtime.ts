import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import path from 'node:path';
import { validateOptions } from '../config/validate-options.js';
import { openFileInside } from '../runtime/anchored-folder.js';
import { RuntimeCommandError } from '../runtime/errors.js';
import { isInside } from '../runtime/is-inside.js';
import type {
  RuntimeProcess,
  RuntimeProcessCommand,
  RuntimeProcessExit,
  RuntimeProcessOutput,
} from '../runtime/runtime-process.js';
import type { RuntimeCommand, RuntimeResult, WorkspaceRuntime } from '../runtime/runtime-types.js';
import type { FileContent, PlacedTree, TreeEntry, WorkspaceFiles } from '../runtime/workspace-files.js';
import { lostRunResult } from './lost-run-result.js';
import { signRequest } from './request-signature.js';
import { defaultMaxRequestBytes } from './sandbox-worker.js';
import {
  WorkerBusyError,
  WorkerMessageTooLargeError,
  WorkerUnauthenticatedError,
  WorkerUnreachableError,
} from './worker-errors.js';
import { decodeWorkerMessage, encodeWorkerMessage } from './worker-message.js';
import { remoteRuntimeOptionsSchema } from './worker-options-schema.js';
import { deserializeError, type WorkerMethod, type WorkerRequest, type WorkerResponse } from './worker-protocol.js';

/** Options of `createRemoteRuntime`. */
export interface RemoteRuntimeOptions {
  /** The sandbox worker's URL (`skillbox worker` prints it), such as `http://127.0.0.1:7070`. */
  url: string;
  /** The secret the worker was given. */
  secret: string | Uint8Array;
  /** Bytes of one request body at most (a skill's files staged in one put); default 256 MiB. */
  maxRequestBytes?: number;
  /** Bytes of one answer at most (a file read, a run's output); default 256 MiB. */
  maxResponseBytes?: number;
  /** Where the worker's commands see the workspace; default `/workspace` (the sandbox's). */
  guestRoot?: string;
}

/** A runtime whose workspaces live on a sandbox worker; `close()` drops its connections (the worker keeps running). */
export interface RemoteRuntime extends WorkspaceRuntime {
  start(command: RuntimeProcessCommand): Promise<RuntimeProcess>;
  stopProcesses(workspaceRoot: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The header naming a request's workspace for a load balancer in front of several workers: a
 * digest of the workspace's name (the name itself, a host path, stays in the signed body). With
 * haproxy, `balance hdr(x-skillbox-workspace)` and `hash-type consistent` send every request of a
 * workspace to the worker holding it, and another one only when that worker is gone
 * (docs/workers.md, "Several workers"). Not signed: a changed header can only misroute a request,
 * which the worker it reaches then refuses (`WORKSPACE_HELD`) or serves from the last snapshot.
 */
export const workspaceRouteHeader = 'x-skillbox-workspace';

function workspaceRoute(workspace: string): string {
  return createHash('sha256').update(workspace).digest('hex').slice(0, 32);
}

/**
 * A `WorkspaceRuntime` whose commands and workspace files are on a sandbox worker
 * (`createSandboxWorker`, `skillbox worker`): every run, file operation and background process is a
 * signed request to it. The host's workspace folder stays empty; skills and inputs travel as bytes,
 * outputs come back as bytes. A refusal (a bad field, a busy worker: `WorkerBusyError`, a worker
 * that cannot be reached: `WorkerUnreachableError`) is thrown before anything starts; a run whose
 * connection breaks after it was sent is a lost result (`lost: true`), since it may have run.
 */
export function createRemoteRuntime(options: RemoteRuntimeOptions): RemoteRuntime {
  validateOptions('createRemoteRuntime', remoteRuntimeOptionsSchema, options);
  const base = new URL(options.url);
  const secret = typeof options.secret === 'string' ? Buffer.from(options.secret, 'utf8') : Buffer.from(options.secret);
  const maxRequestBytes = options.maxRequestBytes ?? defaultMaxRequestBytes;
  const maxResponseBytes = options.maxResponseBytes ?? defaultMaxRequestBytes;
  const guestRoot = options.guestRoot ?? '/workspace';
  const secure = base.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const prefix = base.pathname.replace(/\/+$/, '');

  /** Rejects with `sent: true` when the connection broke after the whole request was written. */
  const call = async (method: WorkerMethod, message: WorkerRequest): Promise<unknown> => {
    const body = encodeWorkerMessage(message);
    if (body.length > maxRequestBytes)
      throw new WorkerMessageTooLargeError(
        'maxRequestBytes',
        maxRequestBytes,
        `the ${describe(method, message)} request is ${body.length} bytes`,
      );
    const requestPath = `${prefix}/v1/${method}`;
    const headers = signRequest(secret, { method: 'POST', path: requestPath, body });
    const { status, text, retryAfter } = await new Promise<{ status: number; text: Buffer; retryAfter: number }>(
      (resolve, reject) => {
        let sent = false;
        const outgoing = (secure ? httpsRequest : httpRequest)(
          {
            protocol: base.protocol,
            hostname: base.hostname.replace(/^\[|\]$/g, ''),
            port: base.port,
            method: 'POST',
            path: requestPath,
            agent,
            headers: {
              ...headers,
              ...(message.workspace === undefined ? {} : { [workspaceRouteHeader]: workspaceRoute(message.workspace) }),
              'content-type': 'application/octet-stream',
              'content-length': body.length,
            },
          },
          (response: IncomingMessage) => {
            const chunks: Buffer[] = [];
            let size = 0;
            response.on('data', (chunk: Buffer) => {
              size += chunk.length;
              if (size > maxResponseBytes) {
                response.destroy();
                reject(
                  new WorkerMessageTooLargeError(
                    'maxResponseBytes',
                    maxResponseBytes,
                    `the answer to ${describe(method, message)} is larger`,
                  ),
                );
                return;
              }
              chunks.push(chunk);
            });
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                text: Buffer.concat(chunks),
                retryAfter: Number(response.headers['retry-after'] ?? 1),
              }),
            );
            response.on('error', (error) => reject(Object.assign(error, { sent: true })));
          },
        );
        outgoing.on('finish', () => {
          sent = true;
        });
        outgoing.on('error', (error) => reject(sent ? Object.assign(error, { sent: true }) : error));
        outgoing.end(body);
      },
    ).catch((error: Error & { sent?: boolean }) => {
      if (error instanceof WorkerMessageTooLargeError) throw error;
      if (error.sent === true) throw Object.assign(new WorkerUnreachableError(options.url, error), { sent: true });
      throw new WorkerUnreachableError(options.url, error);
    });
    if (status === 200) {
      const reply = decodeWorkerMessage<WorkerResponse>(text);
      if (!reply.ok) throw deserializeError(reply.error);
      return reply.value;
    }
    if (status === 401) throw new WorkerUnauthenticatedError(options.url);
    if (status === 413)
      throw new WorkerMessageTooLargeError(
        'maxRequestBytes',
        maxRequestBytes,
        `the worker refused the ${describe(method, message)} request`,
      );
    if (status === 503)
      throw new WorkerBusyError((Number.isFinite(retryAfter) ? retryAfter : 1) * 1000, text.toString('utf8'));
    throw new Error(
      `the sandbox worker at ${options.url} answered HTTP ${status}: ${text.toString('utf8').slice(0, 500)}`,
    );
  };

  const relativeCwd = (command: RuntimeCommand | RuntimeProcessCommand): string => {
    if ((command.readOnlyPaths ?? []).length > 0)
      throw new RuntimeCommandError('readOnlyPaths', 'the remote runtime cannot show host paths to its commands');
    // Relative to the workspace (it may climb: the worker's check refuses that by name).
    return path.relative(path.resolve(command.workspaceRoot), path.resolve(command.cwd)).split(path.sep).join('/');
  };

  return {
    kind: 'remote',
    isolated: true,
    guestPath(hostPath, workspaceRoot) {
      const root = path.resolve(workspaceRoot);
      const target = path.resolve(hostPath);
      if (!isInside(root, target))
        throw new RuntimeCommandError('path', `"${hostPath}" is outside the workspace "${workspaceRoot}"`);
      const relative = path.relative(root, target).split(path.sep).join('/');
      return relative === '' ? guestRoot : path.posix.join(guestRoot, relative);
    },
    async run(command: RuntimeCommand): Promise<RuntimeResult> {
      const cwd = relativeCwd(command);
      const callId = randomUUID();
      const { abortSignal, readOnlyPaths: _readOnly, workspaceRoot, ...rest } = command;
      const onAbort = () => void call('abort', { params: [callId] }).catch(() => undefined);
      if (abortSignal?.aborted) onAbort();
      abortSignal?.addEventListener('abort', onAbort, { once: true });
      try {
        return (await call('run', { workspace: workspaceRoot, params: [callId, { ...rest, cwd }] })) as RuntimeResult;
      } catch (error) {
        // Sent, and then the worker went silent: it may have run it. A result, as the contract wants.
        if ((error as { sent?: boolean }).sent === true) return lostRunResult((error as Error).message);
        throw error;
      } finally {
        abortSignal?.removeEventListener('abort', onAbort);
      }
    },
    async start(command: RuntimeProcessCommand): Promise<RuntimeProcess> {
      const cwd = relativeCwd(command);
      const { readOnlyPaths: _readOnly, workspaceRoot, ...rest } = command;
      const id = (await call('process', {
        operation: 'start',
        workspace: workspaceRoot,
        params: [{ ...rest, cwd }],
      })) as string;
      const forward = (operation: string, ...params: unknown[]): Promise<unknown> =>
        call('process', { operation, workspace: workspaceRoot, params: [id, ...params] });
      // One long request that the worker answers when the process ends.
      const exited = forward('exited') as Promise<RuntimeProcessExit>;
      exited.catch(() => undefined);
      return {
        id,
        exited,
        writeStdin: async (data) => {
          await forward('writeStdin', typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
        },
        closeStdin: async () => {
          await forward('closeStdin');
        },
        read: (waitMs) => forward('read', waitMs) as Promise<RuntimeProcessOutput>,
        kill: () => forward('kill') as Promise<RuntimeProcessExit>,
      };
    },
    async stopProcesses(workspaceRoot: string): Promise<void> {
      await call('process', { operation: 'stop', workspace: workspaceRoot, params: [] });
    },
    files(workspaceRoot: string): WorkspaceFiles {
      const forward =
        (operation: string) =>
        (...params: unknown[]): Promise<never> =>
          call('files', { workspace: workspaceRoot, operation, params }) as Promise<never>;
      return {
        ensureFolders: forward('ensureFolders'),
        makeFolder: forward('makeFolder'),
        inspect: async (target) => ((await forward('inspect')(target)) ?? undefined) as never,
        resolve: async (paths) =>
          ((await forward('resolve')(paths)) as unknown[]).map((item) => item ?? undefined) as never,
        list: forward('list'),
        read: forward('read'),
        // Host files are read here, by the host, and sent as bytes: the worker cannot see them.
        put: async (target, tree, putOptions) => forward('put')(target, await withBytes(tree), putOptions ?? {}),
        copy: forward('copy'),
        remove: forward('remove'),
        measure: forward('measure'),
      };
    },
    async close() {
      agent.destroy();
    },
  };
}

function describe(method: WorkerMethod, message: WorkerRequest): string {
  return message.operation === undefined ? `"${method}"` : `"${method} ${message.operation}"`;
}

async function withBytes(tree: PlacedTree): Promise<PlacedTree> {
  if (tree.kind === 'file') return { ...tree, content: await bytesOf(tree.content) };
  if (tree.kind === 'link') return tree;
  const entries: TreeEntry[] = [];
  for (const entry of tree.entries)
    entries.push(entry.kind === 'file' ? { ...entry, content: await bytesOf(entry.content) } : entry);
  return { ...tree, entries };
}

/** A host file's bytes, read with the same check a host runtime makes (`within`: opened, then checked). */
async function bytesOf(content: FileContent): Promise<FileContent> {
  if ('data' in content) return content;
  if (content.within === undefined) return { data: await readFile(content.hostFile) };
  const handle = await openFileInside(content.within, content.hostFile);
  try {
    return { data: await handle.readFile() };
  } finally {
    await handle.close();
  }
}
