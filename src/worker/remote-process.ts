import type { RuntimeProcess, RuntimeProcessExit, RuntimeProcessOutput } from '../runtime/runtime-process.js';
import type { WorkerCaller } from './worker-call.js';

/**
 * The handle of a background process the worker started (its id): each method is one request
 * about it, and `exited` one long request the worker answers when the process ends.
 */
export function remoteProcess(call: WorkerCaller['call'], workspaceRoot: string, id: string): RuntimeProcess {
  const forward = (operation: string, ...params: unknown[]): Promise<unknown> =>
    call('process', { operation, workspace: workspaceRoot, params: [id, ...params] });
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
}
