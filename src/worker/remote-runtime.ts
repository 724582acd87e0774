import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { validateOptions } from '../config/validate-options.js';
import { RuntimeCommandError } from '../runtime/errors.js';
import { isInside } from '../runtime/is-inside.js';
import type { RuntimeProcess, RuntimeProcessCommand } from '../runtime/runtime-process.js';
import type { RuntimeCommand, RuntimeResult, WorkspaceRuntime } from '../runtime/runtime-types.js';
import type { WorkspaceFiles } from '../runtime/workspace-files.js';
import { lostRunResult } from './lost-run-result.js';
import { remoteProcess } from './remote-process.js';
import { remoteWorkspaceFiles } from './remote-workspace-files.js';
import { defaultMaxRequestBytes } from './sandbox-worker.js';
import { createWorkerCaller } from './worker-call.js';
import { remoteRuntimeOptionsSchema } from './worker-options-schema.js';

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
 * A `WorkspaceRuntime` whose commands and workspace files are on a sandbox worker
 * (`createSandboxWorker`, `skillbox worker`): every run, file operation and background process is a
 * signed request to it. The host's workspace folder stays empty; skills and inputs travel as bytes,
 * outputs come back as bytes. A refusal (a bad field, a busy worker: `WorkerBusyError`, a worker
 * that cannot be reached: `WorkerUnreachableError`) is thrown before anything starts; a run whose
 * connection breaks after it was sent is a lost result (`lost: true`), since it may have run.
 */
export function createRemoteRuntime(options: RemoteRuntimeOptions): RemoteRuntime {
  validateOptions('createRemoteRuntime', remoteRuntimeOptionsSchema, options);
  const secret = typeof options.secret === 'string' ? Buffer.from(options.secret, 'utf8') : Buffer.from(options.secret);
  const guestRoot = options.guestRoot ?? '/workspace';
  const { call, close } = createWorkerCaller({
    url: options.url,
    secret,
    maxRequestBytes: options.maxRequestBytes ?? defaultMaxRequestBytes,
    maxResponseBytes: options.maxResponseBytes ?? defaultMaxRequestBytes,
  });

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
      return remoteProcess(call, workspaceRoot, id);
    },
    async stopProcesses(workspaceRoot: string): Promise<void> {
      await call('process', { operation: 'stop', workspace: workspaceRoot, params: [] });
    },
    files: (workspaceRoot: string): WorkspaceFiles => remoteWorkspaceFiles(call, workspaceRoot),
    async close() {
      close();
    },
  };
}
