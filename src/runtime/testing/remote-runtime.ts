import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openFileInside } from '../anchored-folder.js';
import { RuntimeCommandError } from '../errors.js';
import { isInside } from '../is-inside.js';
import type {
  RuntimeProcess,
  RuntimeProcessCommand,
  RuntimeProcessExit,
  RuntimeProcessOutput,
} from '../runtime-process.js';
import type { RuntimeCommand, RuntimeResult, WorkspaceRuntime } from '../runtime-types.js';
import type { FileContent, PlacedTree, TreeEntry, WorkspaceFiles } from '../workspace-files.js';
import {
  decodeMessage,
  deserializeError,
  encodeMessage,
  type RemoteRequest,
  type RemoteResponse,
} from './remote-protocol.js';

/** A runtime whose workspaces live in another process; `close()` stops that process and removes its folder. */
export interface RemoteRuntime extends WorkspaceRuntime {
  start(command: RuntimeProcessCommand): Promise<RuntimeProcess>;
  stopProcesses(workspaceRoot: string): Promise<void>;
  /** Where the worker keeps its workspaces is its own business: this process never sees the path. */
  close(): Promise<void>;
}

/**
 * Starts a worker process (remote-worker.ts) and returns a runtime that forwards every command and
 * every workspace file operation to it over loopback HTTP. It is the proof that the runtime
 * contract does not need the host to open the workspace: the host's workspace folder stays empty,
 * skills and inputs travel as bytes, outputs come back as bytes. Test support, not a product: one
 * JSON document per call (bytes in base64) is simple, not fast.
 */
export async function startRemoteRuntime(): Promise<RemoteRuntime> {
  const here = fileURLToPath(import.meta.url);
  const script = path.join(path.dirname(here), `remote-worker${path.extname(here)}`);
  const worker = spawn(process.execPath, [...(script.endsWith('.ts') ? ['--import', 'tsx'] : []), script], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const token = randomBytes(24).toString('hex');
  worker.stdin?.write(`${token}\n`);
  const hello = await firstLineOf(worker);
  const { port, guestRoot } = JSON.parse(hello) as { port: number; guestRoot: string };
  const agent = new Agent({ keepAlive: true });

  const call = async (message: RemoteRequest): Promise<unknown> => {
    const body = Buffer.from(encodeMessage(message), 'utf8');
    const text = await new Promise<string>((resolve, reject) => {
      const outgoing = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/',
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': body.length,
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            response.statusCode === 200
              ? resolve(Buffer.concat(chunks).toString('utf8'))
              : reject(new Error(`remote worker answered HTTP ${response.statusCode}`)),
          );
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
    const reply = decodeMessage<RemoteResponse>(text);
    if (!reply.ok) throw deserializeError(reply.error);
    return reply.value;
  };

  const relativeInside = (hostPath: string, workspaceRoot: string, field: string): string => {
    const root = path.resolve(workspaceRoot);
    const target = path.resolve(hostPath);
    if (!isInside(root, target))
      throw new RuntimeCommandError(field, `"${hostPath}" is outside the workspace "${workspaceRoot}"`);
    return path.relative(root, target).split(path.sep).join('/');
  };

  let runs = 0;
  const runtime: RemoteRuntime = {
    kind: 'remote',
    isolated: true,
    guestPath(hostPath, workspaceRoot) {
      const relative = relativeInside(hostPath, workspaceRoot, 'path');
      return relative === '' ? guestRoot : path.posix.join(guestRoot, relative);
    },
    async run(command: RuntimeCommand): Promise<RuntimeResult> {
      if ((command.readOnlyPaths ?? []).length > 0)
        throw new RuntimeCommandError('readOnlyPaths', 'the remote runtime cannot show host paths to its commands');
      runs += 1;
      const id = `${process.pid}-${runs}`;
      const { abortSignal, readOnlyPaths: _readOnly, workspaceRoot, ...rest } = command;
      const onAbort = () => void call({ method: 'abort', params: [id] }).catch(() => undefined);
      if (abortSignal?.aborted) onAbort();
      abortSignal?.addEventListener('abort', onAbort, { once: true });
      try {
        // The cwd travels relative to the workspace (it may climb: the worker's check refuses that by name).
        const cwd = path.relative(path.resolve(workspaceRoot), path.resolve(command.cwd)).split(path.sep).join('/');
        return (await call({
          method: 'run',
          workspace: workspaceRoot,
          params: [id, { ...rest, cwd }],
        })) as RuntimeResult;
      } finally {
        abortSignal?.removeEventListener('abort', onAbort);
      }
    },
    async start(command: RuntimeProcessCommand): Promise<RuntimeProcess> {
      if ((command.readOnlyPaths ?? []).length > 0)
        throw new RuntimeCommandError('readOnlyPaths', 'the remote runtime cannot show host paths to its commands');
      const { readOnlyPaths: _readOnly, workspaceRoot, ...rest } = command;
      const cwd = path.relative(path.resolve(workspaceRoot), path.resolve(command.cwd)).split(path.sep).join('/');
      const id = (await call({
        method: 'process',
        operation: 'start',
        workspace: workspaceRoot,
        params: [{ ...rest, cwd }],
      })) as string;
      const forward = (operation: string, ...params: unknown[]): Promise<unknown> =>
        call({ method: 'process', operation, workspace: workspaceRoot, params: [id, ...params] });
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
      await call({ method: 'process', operation: 'stop', workspace: workspaceRoot, params: [] });
    },
    files(workspaceRoot: string): WorkspaceFiles {
      const forward =
        (operation: string) =>
        (...params: unknown[]): Promise<never> =>
          call({ method: 'files', workspace: workspaceRoot, operation, params }) as Promise<never>;
      return {
        ensureFolders: forward('ensureFolders'),
        makeFolder: forward('makeFolder'),
        inspect: async (target) => ((await forward('inspect')(target)) ?? undefined) as never,
        resolve: async (paths) =>
          ((await forward('resolve')(paths)) as unknown[]).map((item) => item ?? undefined) as never,
        list: forward('list'),
        read: forward('read'),
        // Host files are read here, by the host, and sent as bytes: the worker cannot see them.
        put: async (target, tree, options) => forward('put')(target, await withBytes(tree), options ?? {}),
        copy: forward('copy'),
        remove: forward('remove'),
        measure: forward('measure'),
      };
    },
    async close() {
      agent.destroy();
      if (worker.exitCode !== null) return;
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.stdin?.end();
      await exited;
    },
  };
  return runtime;
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

function firstLineOf(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\n');
      if (end !== -1) {
        child.stdout?.off('data', onData);
        resolve(text.slice(0, end));
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`remote worker exited (code ${code}) before it listened`)));
  });
}
