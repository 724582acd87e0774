import { rm } from 'node:fs/promises';
import path from 'node:path';
import { RuntimeCommandError } from '../runtime/errors.js';
import { HostWorkspaceFiles } from '../runtime/host-workspace-files.js';
import type { RuntimeProcess, RuntimeProcessCommand } from '../runtime/runtime-process.js';
import type { RuntimeCommand, RuntimeResult, WorkspaceRuntime } from '../runtime/runtime-types.js';
import { validateRuntimeCommand } from '../runtime/validate-command.js';
import type { PlacedTree } from '../runtime/workspace-files.js';
import type { WorkerMethod, WorkerRequest } from './worker-protocol.js';
import type { WorkerRuns } from './worker-runs.js';
import type { WorkerWorkspaces } from './worker-workspaces.js';

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
 * What a sandbox worker does for each signed request (worker-http.ts checks the signature and the
 * body first): runs, workspace file operations and background processes, in the worker's own
 * workspace folders, with custody told of every change. It keeps what closing must end: runs under
 * way and background processes.
 */
export class WorkerOperations {
  readonly #runtime: WorkspaceRuntime;
  readonly #workspaces: WorkerWorkspaces;
  readonly #runs: WorkerRuns;
  readonly #aborts = new Map<string, AbortController>();
  /** Runs being served, so `stopRuns` can wait for the ones it killed. */
  readonly #serving = new Set<Promise<unknown>>();
  readonly #processes = new Map<string, { process: RuntimeProcess; workspace: string; folder: string }>();

  constructor(runtime: WorkspaceRuntime, workspaces: WorkerWorkspaces, runs: WorkerRuns) {
    this.#runtime = runtime;
    this.#workspaces = workspaces;
    this.#runs = runs;
  }

  /** Aborts the runs under way and waits until each has answered. */
  async stopRuns(): Promise<void> {
    for (const controller of this.#aborts.values()) controller.abort();
    await Promise.allSettled([...this.#serving]);
  }

  /** Kills every background process still held. */
  async killProcesses(): Promise<void> {
    for (const { process: started } of this.#processes.values()) await started.kill().catch(() => undefined);
  }

  async #run(request: WorkerRequest, callerGone: AbortSignal): Promise<RuntimeResult> {
    const [callId, given] = request.params as [string, RuntimeCommand & { cwd: string }];
    const { name, folder } = await this.#workspaces.open(request.workspace);
    const command = commandOnWorker(given, folder);
    const controller = new AbortController();
    this.#aborts.set(String(callId), controller);
    const running = this.#runs.run({ ...command, abortSignal: controller.signal }, callerGone);
    this.#serving.add(running);
    void running.then(
      () => this.#serving.delete(running),
      () => this.#serving.delete(running),
    );
    try {
      let result = await running;
      try {
        await this.#workspaces.changed(name, folder);
      } catch (error) {
        result = {
          ...result,
          warnings: [...result.warnings, `workspace custody could not record the change: ${(error as Error).message}`],
        };
      }
      return result;
    } finally {
      this.#aborts.delete(String(callId));
    }
  }

  async #files(request: WorkerRequest): Promise<unknown> {
    const operation = request.operation ?? '';
    if (!fileOperations.has(operation)) throw new Error(`unknown file operation "${operation}"`);
    // The agent side sends bytes; a host file named here would be read on the worker's own disk.
    if (operation === 'put' && namesHostFile(request.params[1] as PlacedTree))
      throw new Error('put: the worker takes file contents as bytes, never as host file names');
    const { name, folder } = await this.#workspaces.open(request.workspace);
    const files = new HostWorkspaceFiles(folder);
    const method = (files as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[operation];
    const value = await (method as (...args: unknown[]) => Promise<unknown>).apply(files, request.params);
    if (operation === 'remove' && request.params[0] === '') {
      await rm(folder, { recursive: true, force: true });
      await this.#workspaces.removed(name);
    } else if (changingFileOperations.has(operation)) await this.#workspaces.changed(name, folder);
    return value === undefined ? null : value;
  }

  async #process(request: WorkerRequest): Promise<unknown> {
    const operation = request.operation ?? '';
    if (this.#runtime.start === undefined || this.#runtime.stopProcesses === undefined)
      throw new RuntimeCommandError('background', "the worker's runtime cannot run background this.#processes");
    if (operation === 'start') {
      const { name, folder } = await this.#workspaces.open(request.workspace);
      const command = commandOnWorker(request.params[0] as RuntimeProcessCommand, folder);
      const started = await this.#runtime.start(command);
      this.#processes.set(started.id, { process: started, workspace: name, folder });
      void started.exited.then(
        () => this.#workspaces.changed(name, folder).catch(() => undefined),
        () => undefined,
      );
      return started.id;
    }
    if (operation === 'stop') {
      const { name, folder } = await this.#workspaces.open(request.workspace);
      await this.#runtime.stopProcesses(folder);
      // Their handles are no longer asked for: the workspace is being closed or removed.
      for (const [id, held] of this.#processes) if (held.workspace === name) this.#processes.delete(id);
      return null;
    }
    const held = this.#processes.get(String(request.params[0]));
    if (held === undefined) throw new Error(`unknown process "${String(request.params[0])}"`);
    const started = held.process;
    if (operation === 'writeStdin') await started.writeStdin(request.params[1] as Uint8Array);
    else if (operation === 'closeStdin') await started.closeStdin();
    else if (operation === 'read') return started.read(Number(request.params[1]));
    else if (operation === 'kill') return started.kill();
    else if (operation === 'exited') return started.exited;
    else throw new Error(`unknown process operation "${operation}"`);
    return null;
  }

  /** Serves one checked request: a run, a file operation, a background-process operation, or an abort. */
  dispatch(method: WorkerMethod, request: WorkerRequest, callerGone: AbortSignal): Promise<unknown> {
    if (method === 'run') return this.#run(request, callerGone);
    if (method === 'files') return this.#files(request);
    if (method === 'process') return this.#process(request);
    this.#aborts.get(String(request.params[0]))?.abort();
    return Promise.resolve(null);
  }
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

function namesHostFile(tree: PlacedTree): boolean {
  if (tree === null || typeof tree !== 'object') return false;
  if (tree.kind === 'file') return !('data' in tree.content);
  if (tree.kind === 'directory')
    return tree.entries.some((entry) => entry.kind === 'file' && !('data' in entry.content));
  return false;
}
