/**
 * The worker side of the remote runtime (remote-runtime.ts): a separate process that owns its own
 * temporary folder, keeps every workspace there, and answers runs and file operations sent over
 * loopback HTTP. Commands run in the real bubblewrap sandbox; file operations use the host
 * implementation on the worker's own folders, as a container or remote machine would on its disk.
 *
 * Started as `node --import tsx remote-worker.ts`; reads its token from the first line of stdin,
 * prints `{"port":...,"guestRoot":...}` on stdout when it listens, and exits (removing its folder)
 * when stdin closes, so it never outlives the process that started it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SANDBOX_WORKSPACE_PATH } from '../bubblewrap-arguments.js';
import { HostWorkspaceFiles } from '../host-workspace-files.js';
import type { RuntimeProcess, RuntimeProcessCommand } from '../runtime-process.js';
import type { RuntimeCommand } from '../runtime-types.js';
import { SandboxRuntime } from '../sandbox-runtime.js';
import type { PlacedTree } from '../workspace-files.js';
import {
  decodeMessage,
  encodeMessage,
  type RemoteRequest,
  type RemoteResponse,
  serializeError,
} from './remote-protocol.js';

const maxRequestBytes = 512 * 1024 * 1024;

async function main(): Promise<void> {
  const token = await firstLine();
  const base = mkdtempSync(path.join(tmpdir(), 'skillbox-remote-worker-'));
  const runtime = new SandboxRuntime();
  const aborts = new Map<string, AbortController>();
  const processes = new Map<string, RuntimeProcess>();

  /** The worker's folder of a workspace: named by a digest of the host's name, created on first use. */
  const folderOf = (workspace: unknown): string => {
    if (typeof workspace !== 'string' || workspace === '') throw new Error('request names no workspace');
    const folder = path.join(base, createHash('sha256').update(workspace).digest('hex').slice(0, 32));
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    return folder;
  };

  const handle = async (request: RemoteRequest): Promise<unknown> => {
    if (request.method === 'abort') {
      aborts.get(String(request.params[0]))?.abort();
      return null;
    }
    if (request.method === 'run') {
      const [id, command] = request.params as [string, RuntimeCommand & { cwd: string }];
      const root = folderOf(request.workspace);
      const controller = new AbortController();
      aborts.set(id, controller);
      try {
        // `cwd` arrives relative to the workspace; one that climbs out is refused by the sandbox's own check.
        return await runtime.run({
          ...command,
          workspaceRoot: root,
          cwd: path.resolve(root, command.cwd),
          abortSignal: controller.signal,
        });
      } finally {
        aborts.delete(id);
      }
    }
    if (request.method === 'process') return processRequest(request);
    if (request.method === 'files') {
      const files = new HostWorkspaceFiles(folderOf(request.workspace));
      const operation = request.operation ?? '';
      if (!fileOperations.has(operation)) throw new Error(`unknown file operation "${operation}"`);
      // The host sends bytes; a host file named here would be read on the worker's own disk.
      if (operation === 'put' && namesHostFile(request.params[1] as PlacedTree))
        throw new Error('put: the worker takes file contents as bytes, never as host file names');
      const method = (files as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[operation];
      const value = await (method as (...args: unknown[]) => Promise<unknown>).apply(files, request.params);
      if (operation === 'remove' && request.params[0] === '')
        rmSync(folderOf(request.workspace), { recursive: true, force: true });
      return value === undefined ? null : value;
    }
    throw new Error(`unknown method "${String(request.method)}"`);
  };

  const processRequest = async (request: RemoteRequest): Promise<unknown> => {
    const operation = request.operation ?? '';
    if (operation === 'start') {
      const command = request.params[0] as RuntimeProcessCommand;
      const root = folderOf(request.workspace);
      const started = await runtime.start({ ...command, workspaceRoot: root, cwd: path.resolve(root, command.cwd) });
      processes.set(started.id, started);
      return started.id;
    }
    if (operation === 'stop') {
      await runtime.stopProcesses(folderOf(request.workspace));
      return null;
    }
    const started = processes.get(String(request.params[0]));
    if (started === undefined) throw new Error(`unknown process "${String(request.params[0])}"`);
    if (operation === 'writeStdin') await started.writeStdin(request.params[1] as Uint8Array);
    else if (operation === 'closeStdin') await started.closeStdin();
    else if (operation === 'read') return started.read(Number(request.params[1]));
    else if (operation === 'kill') return started.kill();
    else if (operation === 'exited') return started.exited;
    else throw new Error(`unknown process operation "${operation}"`);
    return null;
  };

  const expected = Buffer.from(`Bearer ${token}`);
  const server = createServer((incoming, response) => {
    void (async () => {
      let reply: RemoteResponse;
      const given = Buffer.from(incoming.headers.authorization ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        response.writeHead(401).end();
        return;
      }
      try {
        const request = decodeMessage<RemoteRequest>(await readBody(incoming));
        reply = { ok: true, value: await handle(request) };
      } catch (error) {
        reply = { ok: false, error: serializeError(error) };
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(encodeMessage(reply));
    })();
  });
  // The client keeps its connections for the worker's life and closes them itself. With Node's
  // default 5 s keep-alive timeout the server closed a connection idle while another call waited
  // on a 5 s process lifetime, and the client's next call, sent on it as it closed, failed with
  // ECONNRESET (seen once in a CI run on Node 22).
  server.keepAliveTimeout = 0;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    process.stdout.write(`${JSON.stringify({ port, guestRoot: SANDBOX_WORKSPACE_PATH })}\n`);
  });
  // Still flowing after the token: its end is the parent going away.
  process.stdin.resume();
  process.stdin.on('end', () => {
    server.close();
    rmSync(base, { recursive: true, force: true });
    process.exit(0);
  });
}

function namesHostFile(tree: PlacedTree): boolean {
  if (tree.kind === 'file') return !('data' in tree.content);
  if (tree.kind === 'directory')
    return tree.entries.some((entry) => entry.kind === 'file' && !('data' in entry.content));
  return false;
}

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

function firstLine(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\n');
      if (end === -1) return;
      process.stdin.off('data', onData);
      process.stdin.off('end', onEnd);
      resolve(text.slice(0, end).trim());
    };
    const onEnd = (): void => reject(new Error('stdin closed before the token arrived'));
    process.stdin.on('data', onData);
    process.stdin.once('end', onEnd);
  });
}

async function readBody(incoming: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming) {
    size += (chunk as Buffer).length;
    if (size > maxRequestBytes) throw new Error(`request larger than ${maxRequestBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

main().catch((error: unknown) => {
  process.stderr.write(`remote worker: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
